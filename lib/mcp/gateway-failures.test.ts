import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import { startFixtureServer, type FixtureOptions, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import type { FetchLike } from './connection';
import { classifyFailure, SignInRequired, signInRequiredIn } from './failures';
import { createMcpGateway } from './gateway';
import type { CallOptions, McpServerConfig } from './types';

/** Servers that break: every failure comes back as data with a sentence naming the server. */

const gateway = createMcpGateway({ fetch: loopbackFetch });
const caller = { userId: 'user-1' };
const running: FixtureServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function fixture(opts: FixtureOptions) {
  const fx = await startFixtureServer(opts);
  running.push(fx);
  const server: McpServerConfig = { id: 'srv', namespace: 'bad', displayName: 'Flaky', url: fx.url, trust: 'untrusted', timeoutMs: 4_000 };
  return { fx, server };
}

const options = (extra: Partial<CallOptions> = {}): CallOptions => ({
  caller,
  signal: new AbortController().signal,
  timeoutMs: 4_000,
  ...extra,
});

/** A loopback port nothing listens on (and nothing has pooled connections to). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('callTool against a misbehaving server', () => {
  it('HTTP 500 → failed, quoting the status and the body', async () => {
    const { fx, server } = await fixture({ mode: 'http500' });
    const outcome = await gateway.callTool(server, 'echo', {}, options());
    expect(outcome).toEqual({
      kind: 'failed',
      message: `Flaky (${new URL(fx.url).origin}) answered HTTP 500 when asked to run "echo": Internal Server Error: database on fire.`,
    });
  });

  it("a failure quoting the server's words is redacted like lastError: header values, bearer tokens, key parameters", async () => {
    const KEY = 'sk-live-DO-NOT-LEAK-4711';
    // A server that echoes what it was sent in its error, as careless ones do.
    const echo = http.createServer((req, res) => {
      req.resume();
      const { authorization, 'x-api-key': key } = req.headers;
      const said = `bad key ${String(key)}, got Authorization: ${String(authorization)}, see /v?api_key=${KEY}`;
      res.writeHead(500, { 'content-type': 'text/plain' }).end(said);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(echo.address() as net.AddressInfo).port}/mcp`;
      const server: McpServerConfig = {
        id: 'srv',
        namespace: 'echo',
        displayName: 'Echoer',
        url,
        trust: 'untrusted',
        timeoutMs: 4_000,
        headers: { 'X-Api-Key': KEY, Authorization: 'Bearer abcdefgh12345678' },
      };
      const outcome = await gateway.callTool(server, 'echo', {}, options());
      const listed = await gateway.listTools(server, caller);
      for (const message of [outcome.kind === 'failed' ? outcome.message : '', listed.error ?? '']) {
        expect(message).toMatch(/answered HTTP 500 .*bad key \[redacted\]/);
        expect(message).not.toContain(KEY);
        expect(message).not.toContain('abcdefgh12345678');
      }
    } finally {
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });

  it('a reply that is not JSON-RPC → failed, saying so', async () => {
    const { server } = await fixture({ mode: 'garbage' });
    const outcome = await gateway.callTool(server, 'echo', {}, options());
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.message).toMatch(
      /^Flaky \(http:\/\/127\.0\.0\.1:\d+\) sent a reply that is not valid MCP \(JSON-RPC\) when asked to run "echo": Unexpected token/,
    );
  });

  it('a server closing the stream mid-answer → failed promptly, not after the timeout', async () => {
    const { server } = await fixture({ mode: 'close_mid_stream' });
    const started = Date.now();
    const outcome = await gateway.callTool(server, 'echo', {}, options({ timeoutMs: 10_000 }));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.message).toMatch(
      /^Flaky closed the connection before answering "echo" .*The tool may or may not have run\.$/,
    );
  });

  it('a handler that throws → failed with its JSON-RPC error', async () => {
    const { server } = await fixture({});
    const outcome = await gateway.callTool(server, 'throws', {}, options());
    expect(outcome.kind === 'failed' && outcome.message).toMatch(
      /returned an error when asked to run "throws": kaboom: the throws tool always throws \(JSON-RPC error -32603\)\.$/,
    );
  });

  it('nothing listening → failed: could not reach', async () => {
    const port = await closedPort();
    const server: McpServerConfig = {
      id: 'x',
      namespace: 'gone',
      displayName: 'Gone',
      url: `http://127.0.0.1:${port}/mcp?token=secret`,
      trust: 'untrusted',
      timeoutMs: 2_000,
    };
    const outcome = await gateway.callTool(server, 'echo', {}, options());
    expect(outcome).toEqual({
      kind: 'failed',
      message: `Could not reach Gone (http://127.0.0.1:${port}) to run "echo": the connection was refused.`,
    });
    expect(JSON.stringify(outcome)).not.toContain('secret');
  });
});

describe('a server that accepts connections but never answers', () => {
  it('times out while connecting (call) and while listing, saying which', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s)); // reads nothing, answers nothing
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as net.AddressInfo;
    const server: McpServerConfig = {
      id: 's',
      namespace: 'silent',
      displayName: 'Silent',
      url: `http://127.0.0.1:${port}/mcp`,
      trust: 'untrusted',
      timeoutMs: 300,
    };
    try {
      const outcome = await gateway.callTool(server, 'echo', {}, options({ timeoutMs: 300 }));
      expect(outcome).toEqual({ kind: 'timeout', message: 'Silent did not accept the connection within 0.3 s.' });
      const catalog = await gateway.listTools(server, caller);
      expect(catalog.error).toBe('Silent did not answer within 0.3 s when asked to list its tools.');
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe('listTools never throws', () => {
  it('a failing listing → no tools and an error naming the server', async () => {
    const { fx, server } = await fixture({ mode: 'http500', modeScope: 'all' });
    const catalog = await gateway.listTools(server, caller);
    expect(catalog).toMatchObject({ tools: [], skipped: [], truncated: false });
    expect(catalog.error).toBe(
      `Flaky (${new URL(fx.url).origin}) answered HTTP 500 when asked to list its tools: Internal Server Error: database on fire.`,
    );
    expect(catalog.server.url).toBe(fx.url);
  });

  it('garbage during discovery → an error, not an exception', async () => {
    const { server } = await fixture({ mode: 'garbage', modeScope: 'all' });
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.tools).toEqual([]);
    expect(catalog.error).toMatch(/^Could not connect to Flaky .*unusable reply/);
  });

  it('takes at most 200 tools, stops paging early, and reports unusable schemas', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 25; i++) deep = { type: 'object', properties: { a: deep } };
    const odd = [
      { name: 'redos', inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } },
      { name: 'oversized', inputSchema: { type: 'object', properties: { s: { type: 'string', description: 'x'.repeat(70_000) } } } },
      { name: 'too_deep', inputSchema: deep },
    ];
    const bulk = Array.from({ length: 300 }, (_, i) => ({ name: `bulk_${i}`, inputSchema: { type: 'object' as const } }));
    const { fx, server } = await fixture({ tools: [...odd, ...bulk], pageSize: 50 } as FixtureOptions);
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.error).toBeUndefined();
    expect(catalog.truncated).toBe(true);
    expect(catalog.tools).toHaveLength(198); // 200 taken, 2 of them unusable
    expect(catalog.tools[0]!.name).toBe('redos'); // usable: its pattern runs on RE2
    expect(catalog.tools.at(-1)!.name).toBe('bulk_196');
    expect(catalog.skipped).toEqual([
      { serverId: 'srv', name: 'oversized', reason: expect.stringMatching(/too large \(\d+ KB; the limit is 64 KB\)/) },
      { serverId: 'srv', name: 'too_deep', reason: expect.stringMatching(/nested deeper than 20 levels/) },
    ]);
    // 5 pages of 50 reach 250 > 200: the sixth page is never requested.
    const listings = fx.requests.filter((r) => r.method === 'POST').length;
    expect(listings).toBeLessThanOrEqual(6); // discover + 5 pages
  });
});

describe('a legacy-only server (2025-11-25)', () => {
  it('is listed and called over the legacy era; it cannot elicit', async () => {
    const { fx, server } = await fixture({ legacyOnly: true });
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.era).toBe('legacy');
    expect(catalog.tools).toHaveLength(15);
    const echo = await gateway.callTool(server, 'echo', { a: 1 }, options());
    expect(echo).toMatchObject({ kind: 'result', result: { content: [{ type: 'text', text: '{"a":1}' }] } });
    expect(fx.calls.at(-1)!.era).toBe('legacy');
    const ask = await gateway.callTool(server, 'ask_input', {}, options());
    expect(ask.kind).toBe('result');
    expect(ask.kind === 'result' && ask.result.isError).toBe(true);
  });
});

describe('a server that needs the person to sign in', () => {
  const needs = { serverId: 'srv', serverName: 'Flaky', reason: 'expired' as const, scopes: ['read'] };
  /** What the OAuth provider does when it has no credential it can use without the person. */
  const signInFetch: FetchLike = async () => {
    throw new SignInRequired(needs);
  };

  it('a call → needs_sign_in (not a failure), whatever wraps the error', async () => {
    const { server } = await fixture({});
    const outcome = await createMcpGateway({ fetch: signInFetch }).callTool(server, 'echo', {}, options());
    expect(outcome).toEqual({ kind: 'needs_sign_in', ...needs });
    const wrapped = new Error('outer', { cause: new Error('middle', { cause: new SignInRequired(needs) }) });
    expect(signInRequiredIn(wrapped)).toEqual({ kind: 'needs_sign_in', ...needs });
    expect(signInRequiredIn(new Error('plain'))).toBeUndefined();
  });

  it('a listing → no tools, an error in words, and needsSignIn for the page', async () => {
    const { server } = await fixture({});
    const catalog = await createMcpGateway({ fetch: signInFetch }).listTools(server, caller);
    expect(catalog).toMatchObject({ tools: [], failure: 'needs_sign_in', needsSignIn: { kind: 'needs_sign_in', ...needs } });
    expect(classifyFailure(new Error('wrapped', { cause: new SignInRequired(needs) }))).toBe('needs_sign_in');
    expect(catalog.error).toBe('Flaky needs you to sign in before its tools can be listed.');
  });
});
