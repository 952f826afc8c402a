import { describe, expect, it } from 'vitest';

import { inputProblem } from '@/lib/mcp/schema-guard';

import {
  choiceOf,
  constraintFor,
  constraintProblem,
  describeConstraint,
  escapeForPattern,
  folderOf,
  suggestConstraints,
  type ConstraintChoice,
} from './constraints';

const notesSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, body: { type: 'string' }, count: { type: 'integer' }, overwrite: { type: 'boolean' } },
  required: ['path'],
};

/** Runs a fragment through the same guard the engine uses (ajv on RE2): true when the input passes. */
const accepts = (fragment: Record<string, unknown>, input: unknown) => inputProblem(fragment, input) === null;

describe('the three forms, checked by the schema guard', () => {
  it('exact value: only that value of that argument passes, and the argument must be there', () => {
    const c = constraintFor({ kind: 'exact', field: 'path', value: '/notes/a.md' });
    expect(accepts(c, { path: '/notes/a.md', body: 'x' })).toBe(true);
    expect(accepts(c, { path: '/notes/b.md' })).toBe(false);
    expect(accepts(c, { body: 'no path' })).toBe(false);
    expect(inputProblem(c, { path: '/notes/b.md' })).toContain('must equal "/notes/a.md"');
    const n = constraintFor({ kind: 'exact', field: 'count', value: 3 });
    expect(accepts(n, { count: 3 })).toBe(true);
    expect(accepts(n, { count: '3' })).toBe(false);
  });

  it('one of a list: each listed value passes, nothing else', () => {
    const c = constraintFor({ kind: 'one_of', field: 'mode', values: ['draft', 'final', 2] });
    expect(accepts(c, { mode: 'draft' })).toBe(true);
    expect(accepts(c, { mode: 2 })).toBe(true);
    expect(accepts(c, { mode: 'public' })).toBe(false);
    expect(accepts(c, {})).toBe(false);
  });

  it('path prefix: starts with the prefix, no "..", a string', () => {
    const c = constraintFor({ kind: 'path_prefix', field: 'path', prefix: '/notes/' });
    expect(c).toEqual({
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string', pattern: '^/notes/', not: { pattern: '\\.\\.' } } },
    });
    expect(accepts(c, { path: '/notes/projects/a.md' })).toBe(true);
    expect(accepts(c, { path: '/notes/' })).toBe(true);
    expect(accepts(c, { path: '/etc/passwd' })).toBe(false);
    expect(accepts(c, { path: 'x/notes/a.md' })).toBe(false);
    expect(accepts(c, { path: '/notes/../etc/passwd' })).toBe(false);
    expect(accepts(c, { path: '/notes/a..b' })).toBe(false);
    expect(accepts(c, { path: ['/notes/a'] })).toBe(false);
    expect(accepts(c, {})).toBe(false);
  });

  it('a prefix with regex metacharacters is matched literally', () => {
    const prefix = 'C:/data (old)/[x]+.v1$^|{2}*?/';
    const c = constraintFor({ kind: 'path_prefix', field: 'file', prefix });
    expect(accepts(c, { file: `${prefix}report.txt` })).toBe(true);
    expect(accepts(c, { file: 'C:/data (old)/[x]+Xv1$^|{2}*?/report.txt' })).toBe(false); // "." is not "any character"
    expect(accepts(c, { file: 'C:/data old/x.v1/' })).toBe(false);
    expect(escapeForPattern('a.b*c')).toBe('a\\.b\\*c');
  });

  it('an odd argument name is kept as an own property', () => {
    const c = constraintFor({ kind: 'exact', field: 'constructor', value: 'x' });
    expect(Object.keys(c.properties as object)).toEqual(['constructor']);
    expect(accepts(c, { constructor: 'x' })).toBe(true);
    expect(accepts(c, { constructor: 'y' })).toBe(false);
  });

  it('refuses a choice that is not well formed, naming the part', () => {
    const bad: [ConstraintChoice, string][] = [
      [{ kind: 'path_prefix', field: 'path', prefix: '/notes/../' }, 'prefix'],
      [{ kind: 'path_prefix', field: 'path', prefix: '' }, 'prefix'],
      [{ kind: 'path_prefix', field: 'path', prefix: '/notes/%2E%2e/' }, 'prefix'],
      [{ kind: 'path_prefix', field: 'path', prefix: 'C:\\notes\\' }, 'prefix'],
      [{ kind: 'one_of', field: 'mode', values: [] }, 'values'],
      [{ kind: 'one_of', field: 'mode', values: ['a', 'a'] }, 'values'],
      [{ kind: 'exact', field: '', value: 'x' }, 'field'],
      [{ kind: 'exact', field: 'x', value: { a: 1 } as never }, 'value'],
      [{ kind: 'exact', field: 'x', value: Number.NaN }, 'value'],
    ];
    for (const [choice, part] of bad) expect(() => constraintFor(choice), JSON.stringify(choice)).toThrow(`(${part})`);
  });
});

describe('constraintProblem (what the server accepts)', () => {
  it('accepts exactly the three forms the panel builds, and reads them back', () => {
    const choices: ConstraintChoice[] = [
      { kind: 'exact', field: 'path', value: '/notes/a.md' },
      { kind: 'one_of', field: 'count', values: [1, 2, 3] },
      { kind: 'path_prefix', field: 'path', prefix: '/notes/(2026)/' },
    ];
    for (const choice of choices) {
      const fragment = JSON.parse(JSON.stringify(constraintFor(choice))); // as it arrives in a request
      expect(constraintProblem(fragment, notesSchema)).toBeNull();
      expect(choiceOf(fragment)).toEqual(choice);
    }
  });

  it('refuses anything else, naming the field and what is allowed', () => {
    const prefix = constraintFor({ kind: 'path_prefix', field: 'path', prefix: '/notes/' });
    const cases: [unknown, string, RegExp][] = [
      ['^/notes/', 'constraint', /must be a JSON object/],
      [{ type: 'object' }, 'constraint.properties', /exactly one argument/],
      [{ type: 'object', properties: { a: { const: 1 }, b: { const: 2 } }, required: ['a', 'b'] }, 'constraint.properties', /exactly one/],
      // A real regular expression, not a literal prefix.
      [
        { type: 'object', required: ['path'], properties: { path: { type: 'string', pattern: '^/notes/.*', not: { pattern: '\\.\\.' } } } },
        'constraint.properties.path',
        /literal prefix/,
      ],
      // ".." inside the prefix.
      [
        {
          type: 'object',
          required: ['path'],
          properties: { path: { type: 'string', pattern: '^/notes/\\.\\./', not: { pattern: '\\.\\.' } } },
        },
        'constraint.properties.path',
        /may not contain "\.\."/,
      ],
      // The "no .." part dropped.
      [
        { type: 'object', required: ['path'], properties: { path: { type: 'string', pattern: '^/notes/' } } },
        'constraint.properties.path',
        /"not"/,
      ],
      // Not required: a call without the argument would slip through.
      [{ type: 'object', properties: { path: { const: '/a' } } }, 'constraint.properties.path', /"required"/],
      // An extra keyword that widens or changes it.
      [{ ...prefix, anyOf: [{}] }, 'constraint.properties.path', /one of three forms/],
      [{ type: 'object', required: ['x'], properties: { x: { const: { a: 1 } } } }, 'constraint.properties.x.value', /text, a number/],
      [{ type: 'object', required: ['x'], properties: { x: { enum: [] } } }, 'constraint.properties.x.values', /1 to 50/],
      [{ type: 'object', required: ['x'], properties: { x: { minLength: 3 } } }, 'constraint.properties.x', /exact value, one of a list/],
    ];
    for (const [fragment, field, message] of cases) {
      const problem = constraintProblem(fragment);
      expect(problem, JSON.stringify(fragment)).not.toBeNull();
      expect(problem!.field, JSON.stringify(fragment)).toBe(field);
      expect(problem!.message, JSON.stringify(fragment)).toMatch(message);
    }
  });

  it('with the tool schema: the argument must exist, and a prefix needs a text argument', () => {
    const missing = constraintProblem(constraintFor({ kind: 'exact', field: 'title', value: 'x' }), notesSchema);
    expect(missing).toEqual({
      field: 'constraint.properties.title',
      message: 'The tool has no argument "title"; its arguments are "path", "body", "count", "overwrite".',
    });
    const notText = constraintProblem(constraintFor({ kind: 'path_prefix', field: 'count', prefix: '/x/' }), notesSchema);
    expect(notText?.message).toMatch(/applies to a text argument; "count" is "integer"/);
    expect(constraintProblem(constraintFor({ kind: 'exact', field: 'count', value: 2 }), notesSchema)).toBeNull();
  });
});

describe('describeConstraint', () => {
  it('puts each form in words', () => {
    expect(describeConstraint(constraintFor({ kind: 'path_prefix', field: 'path', prefix: '/notes/' }))).toBe(
      'path starts with /notes/ (no ..)',
    );
    expect(describeConstraint(constraintFor({ kind: 'exact', field: 'title', value: 'Groceries' }))).toBe('title is “Groceries”');
    expect(describeConstraint(constraintFor({ kind: 'one_of', field: 'mode', values: ['draft', 'final'] }))).toBe(
      'mode is one of “draft”, “final”',
    );
    expect(describeConstraint(constraintFor({ kind: 'exact', field: 'overwrite', value: false }))).toBe('overwrite is false');
  });

  it('never claims to understand a fragment it did not build', () => {
    expect(describeConstraint({ type: 'object', properties: { path: { pattern: '^/a.*' } } })).toMatch(/cannot put in words/);
  });
});

describe('suggestConstraints', () => {
  it('offers the folder of a path argument first, then exact values, each accepting this call', () => {
    const input = { path: '/notes/projects/plan.md', body: 'hello', count: 2, overwrite: true, tags: ['a'] };
    const suggestions = suggestConstraints(input, notesSchema);
    expect(suggestions.map((s) => s.label)).toEqual([
      'only path under /notes/projects/ (no ..)',
      'only when path is “/notes/projects/plan.md”',
      'only when body is “hello”',
      'only when count is 2',
      'only when overwrite is true',
    ]);
    expect(suggestions[0]!.choice).toEqual({ kind: 'path_prefix', field: 'path', prefix: '/notes/projects/' });
    for (const s of suggestions) {
      expect(accepts(s.constraint, input), s.label).toBe(true);
      expect(constraintProblem(s.constraint, notesSchema)).toBeNull();
    }
    expect(accepts(suggestions[0]!.constraint, { ...input, path: '/notes/other/x.md' })).toBe(false);
  });

  it('leaves out what would be useless or refused', () => {
    // ".." in the value: no prefix; arguments the schema does not declare: nothing; long text: no exact value.
    const s = suggestConstraints({ path: '/notes/../x', extra: 'y', body: 'x'.repeat(500) }, notesSchema);
    expect(s.map((x) => x.label)).toEqual(['only when path is “/notes/../x”']);
    expect(suggestConstraints('not an object', notesSchema)).toEqual([]);
    expect(suggestConstraints({ path: '/a.md' }, null).map((x) => x.choice.kind)).toEqual(['exact']);
  });

  it('finds URLs and folders by value or by argument name', () => {
    expect(suggestConstraints({ url: 'https://example.com/api/v1/items' })[0]!.choice).toEqual({
      kind: 'path_prefix',
      field: 'url',
      prefix: 'https://example.com/api/v1/',
    });
    expect(suggestConstraints({ dir: 'docs/guides/intro.md' })[0]!.label).toBe('only dir under docs/guides/ (no ..)');
    expect(suggestConstraints({ title: 'a/b' }).map((s) => s.choice.kind)).toEqual(['exact']);
  });

  it('folderOf', () => {
    expect(folderOf('/notes/a.md')).toBe('/notes/');
    expect(folderOf('/notes/')).toBe('/notes/');
    expect(folderOf('/a.md')).toBeNull();
    expect(folderOf('https://example.com')).toBeNull();
    expect(folderOf('https://example.com/x')).toBe('https://example.com/');
    expect(folderOf('plain')).toBeNull();
  });
});
