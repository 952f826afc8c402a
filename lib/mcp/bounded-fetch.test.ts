import type { FetchLike } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createFixtureHandler, startFixtureServer, type FixtureHandler, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { boundedFetch, MAX_RESPONSE_BYTES, ResponseTooLarge } from './bounded-fetch';
import { createMcpGateway } from './gateway';
import type { CallerIdentity, CallOptions, McpServerConfig } from './types';

/**
 * Security review: an MCP server's answer had no size bound, so one call could make the host
 * read (and then store) any amount. Every response is bounded now, in-process ones included.
 */

const caller: CallerIdentity = { userId: 'user-1', conversationId: 'conv-1' };
const options = (extra: Partial<CallOptions> = {}): CallOptions => ({
  caller,
  signal: new AbortController().signal,
  timeoutMs: 5_000,
  ...extra,
});

/** A body served in chunks of `chunk` bytes, `count` times; `length` sets Content-Length. */
function chunked(chunk: number, count: number, length?: number): FetchLike {
  return async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ >= count) controller.close();
        else controller.enqueue(new Uint8Array(chunk).fill(97));
      },
    });
    const headers: Record<string, string> = { 'content-type': 'text/event-stream' };
    if (length !== undefined) headers['content-length'] = String(length);
    return new Response(body, { status: 200, headers });
  };
}

describe('boundedFetch', () => {
  it('passes a response under the bound through unchanged', async () => {
    const seen: ResponseTooLarge[] = [];
    const f = boundedFetch(async () => Response.json({ ok: true }, { status: 201, headers: { 'x-a': 'b' } }), {
      maxBytes: 100,
      onExceeded: (e) => seen.push(e),
    });
    const r = await f('http://127.0.0.1/');
    expect(r.status).toBe(201);
    expect(r.headers.get('x-a')).toBe('b');
    expect(await r.json()).toEqual({ ok: true });
    expect(seen).toEqual([]);
  });

  it('errors a body once it goes over the bound, counting a stream cumulatively, and says so once', async () => {
    const seen: ResponseTooLarge[] = [];
    // Ten chunks of 300 bytes: each is small, together they pass the 1000-byte bound.
    const f = boundedFetch(chunked(300, 10), { maxBytes: 1000, onExceeded: (e) => seen.push(e) });
    const r = await f('http://127.0.0.1/');
    await expect(r.text()).rejects.toBeInstanceOf(ResponseTooLarge);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.message).toBe('the response is larger than 1000 bytes');
  });

  it('refuses a declared Content-Length over the bound before reading it', async () => {
    const seen: ResponseTooLarge[] = [];
    const f = boundedFetch(chunked(10, 1, 5_000), { maxBytes: 1000, onExceeded: (e) => seen.push(e) });
    await expect(f('http://127.0.0.1/')).rejects.toBeInstanceOf(ResponseTooLarge);
    expect(seen).toHaveLength(1);
  });

  it('defaults to 8 MB and composes with another wrapper around the same seam', async () => {
    expect(MAX_RESPONSE_BYTES).toBe(8 * 1024 * 1024);
    const order: string[] = [];
    const guard =
      (base: FetchLike): FetchLike =>
      (url, init) => {
        order.push(`guard ${String(url)}`);
        return base(url, init);
      };
    const f = guard(boundedFetch(chunked(1024 * 1024, 9)));
    const r = await f('http://127.0.0.1/x');
    await expect(r.arrayBuffer()).rejects.toBeInstanceOf(ResponseTooLarge);
    expect(order).toEqual(['guard http://127.0.0.1/x']);
  });
});

describe('the gateway bounds every server’s answer', () => {
  let fx: FixtureServer;
  let remote: McpServerConfig;
  let handler: FixtureHandler;
  const builtin: McpServerConfig = {
    id: 'builtin-fx',
    namespace: 'fx',
    displayName: 'Built-in fixture',
    url: 'builtin://fx',
    trust: 'trusted',
    timeoutMs: 5_000,
    builtin: true,
  };
  const inProcess = (): FetchLike => (url, init) => handler.fetch(new Request(url, init), {});

  beforeAll(async () => {
    fx = await startFixtureServer();
    remote = { id: 'srv-fx', namespace: 'fx', displayName: 'Fixture', url: fx.url, trust: 'untrusted', timeoutMs: 5_000 };
    handler = createFixtureHandler();
  });
  afterAll(async () => {
    await fx.close();
    await handler.close();
  });

  it('turns a remote answer over the bound into a failed outcome that says it was too large', async () => {
    const gateway = createMcpGateway({ fetch: loopbackFetch, maxResponseBytes: 64 * 1024 });
    const t0 = Date.now();
    const outcome = await gateway.callTool(remote, 'huge', { chars: 200_000 }, options());
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(outcome).toEqual({
      kind: 'failed',
      message:
        'Fixture\'s answer to "huge" was too large: it went over the limit of 64 KB for one response, so Switchboard stopped ' +
        'reading it. The tool may or may not have run.',
    });
    // An answer under the bound still arrives whole.
    const small = await gateway.callTool(remote, 'huge', { chars: 20_000 }, options());
    expect(small.kind).toBe('result');
  });

  it('counts a streaming (SSE) answer cumulatively: a flood of small progress messages is cut too', async () => {
    const gateway = createMcpGateway({ fetch: loopbackFetch, maxResponseBytes: 2_048 });
    const t0 = Date.now();
    const outcome = await gateway.callTool(remote, 'slow', { ms: 4_000 }, options({ onProgress: () => {} }));
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.message).toMatch(
      /^Fixture's answer to "slow" was too large: it went over the limit of 2 KB /,
    );
    // Cut while streaming (about twelve progress messages in), well before the tool would have finished.
    expect(Date.now() - t0).toBeLessThan(3_500);
  });

  it('bounds a built-in in-process server the same way', async () => {
    const gateway = createMcpGateway({ inProcess, maxResponseBytes: 64 * 1024 });
    const outcome = await gateway.callTool(builtin, 'huge', { chars: 200_000 }, options());
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/^Built-in fixture's answer to "huge" was too large/);
    const fine = await gateway.callTool(builtin, 'text', {}, options());
    expect(fine.kind).toBe('result');
  });

  it('reports a tool list over the bound as a listing error', async () => {
    const gateway = createMcpGateway({ inProcess, maxResponseBytes: 1_000 });
    const catalog = await gateway.listTools(builtin, caller);
    expect(catalog.tools).toEqual([]);
    expect(catalog.error).toBe(
      "Built-in fixture's tool list was too large: it went over the limit of 1000 bytes for one response, so Switchboard stopped " +
        'reading it.',
    );
  });
});
