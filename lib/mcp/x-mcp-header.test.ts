import { describe, expect, it } from 'vitest';

import { buildServerCatalog } from './catalog';
import { xMcpHeaderProblem } from './x-mcp-header';

const withProp = (prop: Record<string, unknown>) => ({ type: 'object', properties: { p: prop } });

describe('x-mcp-header declarations (SEP-2243)', () => {
  it('accepts primitive properties with distinct token names, and schemas without any', () => {
    expect(xMcpHeaderProblem({ type: 'object' })).toBeNull();
    expect(
      xMcpHeaderProblem({
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          nested: { type: 'object', properties: { n: { type: 'integer', 'x-mcp-header': 'N' } } },
          flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
        },
      }),
    ).toBeNull();
  });

  it.each([
    ['empty', withProp({ type: 'string', 'x-mcp-header': '' })],
    ['not a string', withProp({ type: 'string', 'x-mcp-header': 7 })],
    ['a space', withProp({ type: 'string', 'x-mcp-header': 'My Header' })],
    ['a colon', withProp({ type: 'string', 'x-mcp-header': 'A:B' })],
    ['non-ASCII', withProp({ type: 'string', 'x-mcp-header': 'Régión' })],
    ['a control character', withProp({ type: 'string', 'x-mcp-header': 'A\nB' })],
    ['on a number', withProp({ type: 'number', 'x-mcp-header': 'N' })],
    ['on an object', withProp({ type: 'object', 'x-mcp-header': 'O' })],
    ['on an array', withProp({ type: 'array', 'x-mcp-header': 'A' })],
    ['without a type', withProp({ 'x-mcp-header': 'T' })],
    ['under items', withProp({ type: 'array', items: { type: 'string', 'x-mcp-header': 'I' } })],
    ['under anyOf', { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }],
    ['on the root', { type: 'object', 'x-mcp-header': 'Root' }],
    [
      'twice regardless of case',
      { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } } },
    ],
  ])('refuses a declaration %s', (_, schema) => {
    expect(xMcpHeaderProblem(schema)).toEqual(expect.any(String));
  });

  it('leaves such a tool out of a 2026-07-28 catalog only, with the reason', () => {
    const server = {
      id: 's',
      namespace: 's',
      displayName: 'S',
      url: 'https://s.example/mcp',
      trust: 'untrusted' as const,
      timeoutMs: 1000,
    };
    const tools = [
      { name: 'good', inputSchema: withProp({ type: 'string', 'x-mcp-header': 'P' }) },
      { name: 'bad', inputSchema: withProp({ type: 'number', 'x-mcp-header': 'P' }) },
    ];
    const modern = buildServerCatalog(server, tools, { modern: true });
    expect(modern.tools.map((t) => t.name)).toEqual(['good']);
    expect(modern.skipped[0]).toMatchObject({ name: 'bad', reason: expect.stringContaining('only string, integer or boolean') });
    expect(buildServerCatalog(server, tools).tools.map((t) => t.name)).toEqual(['good', 'bad']);
  });
});
