import { describe, expect, it } from 'vitest';

import { buildServerCatalog, normalizeAnnotations, reviewState, toolFingerprint } from './catalog';
import type { McpServerConfig } from './types';

const server: McpServerConfig = {
  id: 'srv-1',
  namespace: 'notes',
  displayName: 'Notes',
  url: 'https://notes.example/mcp',
  trust: 'untrusted',
  timeoutMs: 5_000,
};

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name} things`,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  ...extra,
});

describe('buildServerCatalog', () => {
  it("keeps the server's order and fills every catalog field", () => {
    const catalog = buildServerCatalog(server, [tool('zeta', { title: 'Zeta' }), tool('alpha', { outputSchema: { type: 'object' } })]);
    expect(catalog.tools.map((t) => t.name)).toEqual(['zeta', 'alpha']);
    expect(catalog.tools[0]).toMatchObject({
      serverId: 'srv-1',
      namespace: 'notes',
      serverName: 'Notes',
      trust: 'untrusted',
      title: 'Zeta',
      description: 'zeta things',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    });
    expect(catalog.tools[0]!.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(catalog.tools[1]!.outputSchema).toEqual({ type: 'object' });
    expect(catalog).toMatchObject({ skipped: [], truncated: false });
  });

  it('keeps whether a tool may run as a task (MCP Tasks), and nothing for a value it does not know', () => {
    const catalog = buildServerCatalog(server, [
      tool('job', { execution: { taskSupport: 'optional' } }),
      tool('must', { execution: { taskSupport: 'required' } }),
      tool('never', { execution: { taskSupport: 'forbidden' } }),
      tool('odd', { execution: 'yes' }),
      tool('plain'),
    ]);
    expect(catalog.tools.map((t) => [t.name, t.taskSupport])).toEqual([
      ['job', 'optional'],
      ['must', 'required'],
      ['never', undefined],
      ['odd', undefined],
      ['plain', undefined],
    ]);
  });

  it('skips unusable tools with the reason and keeps the rest', () => {
    const catalog = buildServerCatalog(server, [
      tool('good'),
      tool('stringy', { inputSchema: { type: 'string' } }),
      tool('badout', { outputSchema: { type: 'object', properties: { a: { pattern: '(?<=x)y' } } } }),
      { description: 'no name', inputSchema: { type: 'object' } },
      tool('good'),
    ]);
    expect(catalog.tools.map((t) => t.name)).toEqual(['good']);
    expect(catalog.skipped).toEqual([
      { serverId: 'srv-1', name: 'stringy', reason: expect.stringMatching(/input schema is unusable: .*"type": "object"/) },
      { serverId: 'srv-1', name: 'badout', reason: expect.stringMatching(/output schema is unusable/) },
      { serverId: 'srv-1', name: '(unnamed)', reason: 'the tool has no name' },
      { serverId: 'srv-1', name: 'good', reason: 'the server lists another tool with the same name' },
    ]);
  });

  it('takes at most the cap and says the list was cut', () => {
    const many = Array.from({ length: 205 }, (_, i) => tool(`t${i}`));
    const catalog = buildServerCatalog(server, many);
    expect(catalog.tools).toHaveLength(200);
    expect(catalog.tools.at(-1)!.name).toBe('t199');
    expect(catalog.truncated).toBe(true);
    expect(buildServerCatalog(server, many.slice(0, 200)).truncated).toBe(false);
  });
});

describe('normalizeAnnotations', () => {
  it('honours caution from any truthy form, relaxation only from a literal true', () => {
    expect(normalizeAnnotations({ readOnlyHint: 'true', idempotentHint: 1, destructiveHint: 'true', openWorldHint: 1 })).toEqual({
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: true,
      openWorldHint: true,
    });
    expect(normalizeAnnotations({ readOnlyHint: true, idempotentHint: true, title: 'T' })).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      destructiveHint: false,
      openWorldHint: false,
      title: 'T',
    });
    expect(normalizeAnnotations('junk')).toEqual({
      readOnlyHint: false,
      idempotentHint: false,
      destructiveHint: false,
      openWorldHint: false,
    });
  });
});

describe('toolFingerprint', () => {
  it('changes with anything a grant covers, not with key order', () => {
    const base = {
      name: 'a',
      description: 'd',
      inputSchema: { type: 'object', properties: { x: {} } },
      annotations: { readOnlyHint: true },
    };
    const fp = toolFingerprint(server.url, base);
    expect(toolFingerprint(server.url, { ...base, inputSchema: { properties: { x: {} }, type: 'object' } })).toBe(fp);
    expect(toolFingerprint('https://other.example/mcp', base)).not.toBe(fp);
    expect(toolFingerprint(server.url, { ...base, description: 'd2' })).not.toBe(fp);
    expect(toolFingerprint(server.url, { ...base, annotations: { readOnlyHint: false } })).not.toBe(fp);
    expect(toolFingerprint(server.url, { ...base, outputSchema: { type: 'object' } })).not.toBe(fp);
  });
});

describe('the title in the fingerprint', () => {
  const listed = (extra: Record<string, unknown> = {}) => buildServerCatalog(server, [tool('zeta', extra)]).tools[0]!;
  /** What releases before titles counted stored for `tool('zeta')`, with or without a title. */
  const BEFORE_TITLES = '1599ad24e1112fafabacb713bca0d2ffd93248246bf950c9406c7cc0fe58aaa3';

  it('a reviewed tool renamed "Read file" has another fingerprint, as a changed description does', () => {
    expect(listed({ title: 'Zeta' }).fingerprint).not.toBe(listed({ title: 'Read file' }).fingerprint);
    expect(listed({ title: 'Zeta' }).fingerprint).not.toBe(listed().fingerprint);
  });

  it('a tool without a title keeps the fingerprint stored before; a titled one carries that one as untitledFingerprint', () => {
    expect(listed().fingerprint).toBe(BEFORE_TITLES);
    expect(listed().untitledFingerprint).toBeUndefined();
    expect(listed({ title: 'Zeta' }).untitledFingerprint).toBe(BEFORE_TITLES);
  });

  it('an approval stored before titles counted holds for the tool as it is, and only the current one for a rename after', () => {
    const zeta = listed({ title: 'Zeta' });
    expect(reviewState({ tools: { zeta: zeta.fingerprint } }, zeta)).toBe('current');
    expect(reviewState({ tools: {}, beforeTitles: { zeta: BEFORE_TITLES } }, zeta)).toBe('before_titles');
    expect(reviewState({ tools: {}, beforeTitles: { zeta: BEFORE_TITLES } }, listed())).toBe('before_titles');
    // Pinned to "Zeta", a rename is a change; an approval of the untitled tool does not cover a title added later.
    expect(reviewState({ tools: { zeta: zeta.fingerprint } }, listed({ title: 'Read file' }))).toBe('no');
    expect(reviewState({ tools: { zeta: listed().fingerprint } }, listed({ title: 'Read file' }))).toBe('no');
    expect(reviewState({ tools: {}, beforeTitles: { zeta: BEFORE_TITLES } }, listed({ description: 'other' }))).toBe('no');
  });
});
