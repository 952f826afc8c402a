import { describe, expect, it } from 'vitest';

import { ImportShapeError, planImport, STDIO_REASON } from './import';

describe('planImport', () => {
  it('reads Claude Desktop mcpServers: remote entries added with their headers, stdio ones not usable', () => {
    const plan = planImport({
      mcpServers: {
        weather: { url: 'https://weather.example.test/mcp', headers: { 'X-Api-Key': 'k-123' } },
        legacy: { type: 'sse', url: 'https://legacy.example.test/sse' },
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { A: 'b' } },
      },
    });
    expect(plan.candidates).toEqual([
      { name: 'weather', url: 'https://weather.example.test/mcp', headers: { 'X-Api-Key': 'k-123' } },
      { name: 'legacy', url: 'https://legacy.example.test/sse', headers: {} },
    ]);
    expect(plan.notUsable).toEqual([{ name: 'files', reason: STDIO_REASON }]);
    expect(STDIO_REASON).toBe('runs a local program; a web app cannot start programs on your computer');
    expect(plan.problems).toEqual([]);
  });

  it('reads VS Code servers (and settings.json "mcp.servers"), never expanding placeholders', () => {
    const config = {
      inputs: [{ id: 'token', type: 'promptString', password: true }],
      servers: {
        gh: {
          type: 'http',
          url: 'https://api.example.test/mcp/',
          headers: { Authorization: 'Bearer ${input:token}', 'X-Team': 'core', 'X-Env': '${env:HOME}' },
        },
        local: { type: 'stdio', command: 'node', args: ['server.js'] },
        templ: { type: 'http', url: 'https://${input:host}/mcp' },
        odd: { type: 'websocket', url: 'wss://x.example.test' },
      },
    };
    const plan = planImport(config);
    expect(plan.candidates).toEqual([{ name: 'gh', url: 'https://api.example.test/mcp/', headers: { 'X-Team': 'core' } }]);
    expect(JSON.stringify(plan)).not.toContain('/root'); // nothing was expanded
    expect(plan.problems.map((p) => [p.name, p.field])).toEqual([
      ['gh', 'headers.Authorization'],
      ['gh', 'headers.X-Env'],
      ['templ', 'url'],
    ]);
    expect(plan.problems[0]!.message).toMatch(/placeholder.*never expands.*added without this header/);
    expect(plan.notUsable.map((n) => n.name)).toEqual(['local', 'odd']);
    expect(planImport({ mcp: { servers: { a: { url: 'https://a.example.test/' } } } }).candidates).toHaveLength(1);
  });

  it('reports malformed entries and refuses what is not a config at all', () => {
    const plan = planImport({
      mcpServers: { a: 'https://x', b: { headers: {} }, c: { url: 'https://c.example.test', headers: { X: 1 } } },
    });
    expect(plan.problems.map((p) => [p.name, p.field])).toEqual([
      ['a', 'a'],
      ['b', 'url'],
      ['c', 'headers.X'],
    ]);
    expect(plan.candidates.map((c) => c.name)).toEqual(['c']);
    expect(() => planImport([])).toThrow(ImportShapeError);
    expect(() => planImport({ foo: 1 })).toThrow(/mcpServers.*servers/);
    expect(() => planImport({ servers: [] })).toThrow(/must be an object/);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`s${i}`, { url: 'https://x.example.test' }]));
    expect(() => planImport({ servers: many })).toThrow(/at most 50/);
  });
});
