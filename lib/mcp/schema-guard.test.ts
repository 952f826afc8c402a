import { describe, expect, it } from 'vitest';

import {
  checkToolSchema,
  describeValidationError,
  inputProblem,
  SCHEMA_LIMITS,
  validationProblem,
  withInputDefaults,
  type SchemaCheck,
} from './schema-guard';

function ok(check: SchemaCheck) {
  if (!check.ok) throw new Error(`expected a usable schema, got: ${check.reason}`);
  return check.validate;
}

function problem(schema: Record<string, unknown>, input: unknown) {
  const validate = ok(checkToolSchema(schema));
  expect(validate(input)).toBe(false);
  return describeValidationError(validate.errors ?? [], input);
}

describe('checkToolSchema', () => {
  it('accepts draft-07 and 2020-12 schemas, each with its own semantics', () => {
    const draft7 = ok(
      checkToolSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { tags: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
        definitions: { unused: { type: 'string' } },
      }),
    );
    expect(draft7({ tags: ['a'] })).toBe(true);
    expect(draft7({ tags: ['a', 'b'] })).toBe(false); // tuple form of draft-07

    const d2020 = ok(
      checkToolSchema({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
        $defs: { x: { type: 'string' } },
      }),
    );
    expect(d2020({ pair: ['a', 1] })).toBe(true);
    expect(d2020({ pair: ['a', 1, 2] })).toBe(false);
    // No $schema: MCP's default dialect, 2020-12.
    expect(ok(checkToolSchema({ type: 'object', properties: { p: { prefixItems: [{ type: 'string' }] } } }))({ p: [1] })).toBe(false);
  });

  it('ignores unknown keywords instead of refusing the schema', () => {
    expect(checkToolSchema({ type: 'object', 'x-vendor': { anything: true }, properties: { a: { widget: 'slider' } } }).ok).toBe(true);
  });

  it('runs a catastrophic pattern in linear time', () => {
    const validate = ok(checkToolSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }));
    const evil = `${'a'.repeat(100_000)}!`;
    const started = performance.now();
    expect(validate({ s: evil })).toBe(false);
    expect(validate({ s: 'aaaa' })).toBe(true);
    // A backtracking engine needs longer than the age of the universe for this input.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('leaves patterns RE2 cannot run unusable, with the reason', () => {
    const check = checkToolSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)a$' } } });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(/RE2/);
  });

  it('refuses oversized and too-deep schemas before compiling them', () => {
    const big = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 3000 }, (_, i) => [`field_${i}`, { type: 'string', description: 'x'.repeat(20) }]),
      ),
    };
    const tooBig = checkToolSchema(big);
    expect(tooBig.ok).toBe(false);
    if (!tooBig.ok) expect(tooBig.reason).toMatch(/too large .*64 KB/);

    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < SCHEMA_LIMITS.maxDepth; i++) deep = { type: 'object', properties: { a: deep } };
    const tooDeep = checkToolSchema(deep);
    expect(tooDeep.ok).toBe(false);
    if (!tooDeep.ok) expect(tooDeep.reason).toMatch(/deeper than 20 levels/);
  });

  it('requires an object schema when asked, and a JSON object always', () => {
    const notObject = checkToolSchema({ type: 'string' }, { requireObject: true });
    expect(notObject.ok).toBe(false);
    if (!notObject.ok) expect(notObject.reason).toMatch(/"type": "object"/);
    expect(checkToolSchema(true).ok).toBe(false);
    expect(checkToolSchema([{ type: 'object' }]).ok).toBe(false);
    // Fragments (grant constraints, output schemas) need not say type: object.
    expect(checkToolSchema({ properties: { path: { pattern: '^/notes/' } } }).ok).toBe(true);
  });

  it('reports compile failures (remote $ref, unsupported dialect) without fetching anything', () => {
    const remote = checkToolSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } });
    expect(remote.ok).toBe(false);
    if (!remote.ok) expect(remote.reason).toMatch(/can't resolve reference/);
    const dialect = checkToolSchema({ $schema: 'https://example.com/my-dialect', type: 'object' });
    expect(dialect.ok).toBe(false);
    if (!dialect.ok) expect(dialect.reason).toMatch(/not a supported dialect/);
  });

  it('keeps two schemas that reuse one $id apart, and caches by content', () => {
    const a = ok(checkToolSchema({ $id: 'https://x.example/s', type: 'object', properties: { v: { type: 'string' } } }));
    const b = ok(checkToolSchema({ $id: 'https://x.example/s', type: 'object', properties: { v: { type: 'number' } } }));
    expect(a({ v: 'text' })).toBe(true);
    expect(b({ v: 'text' })).toBe(false);
    const again = ok(checkToolSchema({ properties: { v: { type: 'string' } }, type: 'object', $id: 'https://x.example/s' }));
    expect(again).toBe(a); // same content, different key order → the cached validator
  });

  it('validates formats', () => {
    const validate = ok(
      checkToolSchema({
        type: 'object',
        properties: { mail: { type: 'string', format: 'email' }, day: { type: 'string', format: 'date' } },
      }),
    );
    expect(validate({ mail: 'a@b.example', day: '2026-01-31' })).toBe(true);
    expect(validate({ mail: 'not-an-email' })).toBe(false);
  });
});

describe('describeValidationError', () => {
  const schema = {
    type: 'object',
    properties: {
      user: {
        type: 'object',
        properties: { age: { type: 'integer', minimum: 0 }, name: { type: 'string', maxLength: 5 } },
        required: ['name'],
        additionalProperties: false,
      },
      color: { enum: ['red', 'green'] },
      items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'number', maximum: 10 } } } },
    },
  };

  it('names the field, the value received and the allowed type', () => {
    expect(problem(schema, { user: { name: 'Al', age: 'old' } })).toBe('Field "user.age" must be of type integer; received "old".');
  });

  it('lists enum values', () => {
    expect(problem(schema, { color: 'blue' })).toBe('Field "color" must be one of "red", "green"; received "blue".');
  });

  it('names a missing required property', () => {
    expect(problem(schema, { user: { age: 3 } })).toBe('Field "user.name" is required but was not provided.');
  });

  it('names an unexpected property and what is allowed', () => {
    expect(problem(schema, { user: { name: 'Al', nick: 'x' } })).toBe(
      'Field "user" has an unexpected property "nick"; allowed properties are "age", "name".',
    );
  });

  it('gives limits and array indices, and describes a long string instead of echoing it', () => {
    expect(problem(schema, { items: [{ qty: 1 }, { qty: 11 }] })).toBe('Field "items[1].qty" must be <= 10; received 11.');
    expect(problem(schema, { user: { name: 'x'.repeat(500) } })).toMatch(
      /^Field "user.name" must be at most 5 characters long; received a string of \d+ characters\.$/,
    );
    expect(problem({ type: 'object' }, 'text')).toBe('The input must be of type object; received "text".');
  });

  it('is reachable through validationProblem for callers without ajv types', () => {
    const check = checkToolSchema({ type: 'object', properties: { n: { type: 'number', minimum: 1 } } });
    expect(validationProblem(check, { n: 5 })).toBeNull();
    expect(validationProblem(check, { n: 0 })).toBe('Field "n" must be >= 1; received 0.');
    expect(validationProblem(checkToolSchema([]), {})).toMatch(/cannot be used/);
  });
});

describe('withInputDefaults', () => {
  const schema = {
    type: 'object',
    properties: {
      scale: { type: 'string', enum: ['css', 'device'], default: 'css' },
      clip: { type: 'object', properties: { x: { type: 'number', default: 0 } }, default: { x: 0 } },
      tags: { type: 'array', default: [] },
    },
    required: ['scale'],
  };

  it('fills what the input leaves out, on a copy: neither the input nor the schema is written to', () => {
    const before = JSON.stringify(schema);
    const input = { clip: {} };
    const first = withInputDefaults(schema, input);
    expect(first).toEqual({ input: { scale: 'css', clip: { x: 0 }, tags: [] }, problem: null });
    expect(input).toEqual({ clip: {} });
    expect(JSON.stringify(schema)).toBe(before);
    // Each fill is a fresh value: changing one result does not change the next.
    (first.input.tags as unknown[]).push('x');
    expect(withInputDefaults(schema, {}).input).toEqual({ scale: 'css', clip: { x: 0 }, tags: [] });
  });

  it('keeps what was given, and names the field when the input is wrong', () => {
    expect(withInputDefaults(schema, { scale: 'device' }).input.scale).toBe('device');
    const bad = { scale: 'huge' };
    expect(withInputDefaults(schema, bad)).toEqual({
      input: bad,
      problem: 'Field "scale" must be one of "css", "device"; received "huge".',
    });
  });

  it('leaves plain validation alone: the same schema through inputProblem fills nothing', () => {
    withInputDefaults(schema, {});
    const input = {};
    expect(inputProblem(schema, input)).toMatch(/scale/);
    expect(input).toEqual({});
  });
});
