import { afterEach, describe, expect, it } from 'vitest';

import { startFixtureServer, type FixtureOptions, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { createDiscoveryMemo } from './discovery-memo';
import { createMcpGateway } from './gateway';
import type { CallOptions, McpServerConfig } from './types';

/**
 * A call's connection starts from what the last one discovered, against real fixture servers on
 * 127.0.0.1: counted by the JSON-RPC methods the server received.
 */

const caller = { userId: 'user-1', conversationId: 'conv-1' };
const options = (): CallOptions => ({ caller, signal: new AbortController().signal, timeoutMs: 5_000 });
let servers: FixtureServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function fixture(opts: FixtureOptions = {}): Promise<{ fx: FixtureServer; server: McpServerConfig }> {
  const fx = await startFixtureServer(opts);
  servers.push(fx);
  const server = {
    id: `srv-${servers.length}`,
    namespace: 'fx',
    displayName: 'Fixture',
    url: fx.url,
    trust: 'untrusted' as const,
    timeoutMs: 5_000,
  };
  return { fx, server };
}

const count = (fx: FixtureServer, rpc: string) => fx.requests.filter((r) => r.rpc === rpc).length;

describe('the discovery memo', () => {
  it('past its bound forgets the least recently used server only, not everything it kept', async () => {
    const [a, b, c] = [await fixture(), await fixture(), await fixture()];
    const gateway = createMcpGateway({ fetch: loopbackFetch, discoveries: createDiscoveryMemo({ maxEntries: 2 }) });
    const call = async (s: McpServerConfig) => expect((await gateway.callTool(s, 'text', {}, options())).kind).toBe('result');
    await call(a.server);
    await call(b.server);
    await call(a.server); // a is now the most recently used
    await call(c.server); // the bound is reached: b goes
    await call(a.server);
    await call(b.server);
    expect([count(a.fx, 'server/discover'), count(b.fx, 'server/discover'), count(c.fx, 'server/discover')]).toEqual([1, 2, 1]);
  });

  it('asks a modern server `server/discover` once for three calls', async () => {
    const { fx, server } = await fixture();
    const gateway = createMcpGateway({ fetch: loopbackFetch, discoveries: createDiscoveryMemo() });
    for (let i = 0; i < 3; i++) expect((await gateway.callTool(server, 'text', {}, options())).kind).toBe('result');
    expect(count(fx, 'server/discover')).toBe(1);
    expect(count(fx, 'tools/call')).toBe(3);
    expect(fx.calls.map((c) => c.era)).toEqual(['modern', 'modern', 'modern']);
  });

  it('skips the probe of a legacy-only server, which still gets its handshake on every connection', async () => {
    const { fx, server } = await fixture({ legacyOnly: true });
    const gateway = createMcpGateway({ fetch: loopbackFetch, discoveries: createDiscoveryMemo() });
    for (let i = 0; i < 3; i++) expect((await gateway.callTool(server, 'text', {}, options())).kind).toBe('result');
    expect(count(fx, 'server/discover')).toBe(1); // the first connection's probe, refused
    expect(count(fx, 'initialize')).toBe(3);
    expect(fx.calls.map((c) => c.era)).toEqual(['legacy', 'legacy', 'legacy']);
  });

  it('is dropped by a failed call, so the next one asks again', async () => {
    const { fx, server } = await fixture({ mode: 'http500' });
    const memo = createDiscoveryMemo();
    const gateway = createMcpGateway({ fetch: loopbackFetch, discoveries: memo });
    expect((await gateway.callTool(server, 'text', {}, options())).kind).toBe('failed');
    expect(memo.get(server, caller)).toBeUndefined();
    expect((await gateway.callTool(server, 'text', {}, options())).kind).toBe('failed');
    expect(count(fx, 'server/discover')).toBe(2);
  });

  it('is kept per server URL and caller, and for a few minutes only', async () => {
    const { server } = await fixture();
    let now = 1_000;
    const memo = createDiscoveryMemo({ ttlMs: 60_000, now: () => now });
    const gateway = createMcpGateway({ fetch: loopbackFetch, discoveries: memo });
    await gateway.listTools(server, caller); // a listing seeds it
    expect(memo.get(server, caller)?.kind).toBe('modern');
    expect(memo.get(server, { ...caller, userId: 'user-2' })).toBeUndefined();
    expect(memo.get({ ...server, url: `${server.url}?other` }, caller)).toBeUndefined();
    now += 60_000;
    expect(memo.get(server, caller)).toBeUndefined();
  });
});
