import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import type { FetchLike } from './connection';
import { createMcpGateway } from './gateway';
import type { CallOptions, McpServerConfig } from './types';

/**
 * What `startRequestIdsAtRandom` relies on in the SDK, checked where it matters — on the wire:
 * each fresh connection's requests carry ids of their own, so a call resumed after
 * `input_required` is a new request (2026-07-28 forbids reusing the first attempt's id). If an
 * SDK update renames the counter or resets it on connect, this fails.
 */

describe('JSON-RPC request ids across fresh connections', () => {
  let fx: FixtureServer;
  let server: McpServerConfig;
  const sent: { method: string; id: unknown }[] = [];
  const recording: FetchLike = async (url, init) => {
    if (typeof init?.body === 'string') {
      const message = JSON.parse(init.body) as { method?: string; id?: unknown };
      if (message.method !== undefined && message.id !== undefined) sent.push({ method: message.method, id: message.id });
    }
    return loopbackFetch(url, init);
  };
  const gateway = createMcpGateway({ fetch: recording });
  const options = (extra: Partial<CallOptions> = {}): CallOptions => ({
    caller: { userId: 'user-1' },
    signal: new AbortController().signal,
    timeoutMs: 5_000,
    ...extra,
  });

  beforeAll(async () => {
    fx = await startFixtureServer();
    server = { id: 'srv-ids', namespace: 'ids', displayName: 'Ids', url: fx.url, trust: 'trusted', timeoutMs: 5_000 };
  });
  afterAll(() => fx?.close());

  it('a resumed call is sent under a new id, and no two connections start from the same one', async () => {
    const args = { question: 'Favourite colour?' };
    const first = await gateway.callTool(server, 'ask_input', args, options());
    if (first.kind !== 'input_required') throw new Error(JSON.stringify(first));
    const resumed = await gateway.callTool(
      server,
      'ask_input',
      args,
      options({
        resume: { inputResponses: { answer: { action: 'accept', content: { answer: 'blue' } } }, requestState: first.requestState },
      }),
    );
    expect(resumed.kind).toBe('result');
    await gateway.callTool(server, 'text', {}, options());

    const calls = sent.filter((m) => m.method === 'tools/call').map((m) => m.id);
    expect(calls).toHaveLength(3);
    expect(new Set(calls).size).toBe(3);
    // Not the SDK's own start: every fresh client would begin at 0.
    expect(calls.every((id) => typeof id === 'number' && id >= 1)).toBe(true);
    expect(calls.filter((id) => id === 0 || id === 1 || id === 2)).toEqual([]);
  });
});
