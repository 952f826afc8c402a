import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SdkErrorCode, SdkHttpError, type FetchLike } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createFixtureHandler, startFixtureServer, type FixtureHandler, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { closeQuietly, connect, RemoteServersDisabled, shouldTrySse } from './connection';
import { createMcpGateway } from './gateway';
import type { CallerIdentity, McpServerConfig } from './types';

const caller: CallerIdentity = { userId: 'user-7', conversationId: 'c-1' };

describe('built-in servers, in process', () => {
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
  // What lib/mcp/builtin's inProcessFetch does: serve the request from the handler, with the
  // trusted caller riding alongside as authInfo (never taken from the request).
  const inProcess =
    (_server: McpServerConfig, who: CallerIdentity): FetchLike =>
    (url, init) =>
      handler.fetch(new Request(url, init), { authInfo: { token: '', clientId: who.userId, scopes: [] } });

  beforeAll(() => {
    handler = createFixtureHandler();
  });
  afterAll(() => handler.close());

  it('connects through the injected fetch on the modern era, with the caller as authInfo', async () => {
    const client = await connect(builtin, caller, { inProcess });
    try {
      expect(client.getProtocolEra()).toBe('modern');
      const result = await client.callTool({ name: 'echo', arguments: { x: 1 } });
      expect(result.content).toEqual([{ type: 'text', text: '{"x":1}' }]);
      expect(handler.state.callers.at(-1)).toBe('user-7');
    } finally {
      await closeQuietly(client);
    }
  });

  it('lists and calls through the gateway the same way as a remote server', async () => {
    const gateway = createMcpGateway({ inProcess });
    const catalog = await gateway.listTools(builtin, caller);
    expect(catalog.error).toBeUndefined();
    expect(catalog.tools.map((t) => t.serverId)).toEqual(Array(15).fill('builtin-fx'));
    const outcome = await gateway.callTool(builtin, 'counter', {}, { caller, signal: new AbortController().signal, timeoutMs: 5_000 });
    expect(outcome).toEqual({ kind: 'result', result: expect.objectContaining({ content: [{ type: 'text', text: 'count=1' }] }) });
  });

  it('fails clearly when no in-process resolver knows the server', async () => {
    await expect(connect(builtin, caller, {})).rejects.toThrow('The built-in server Built-in fixture is not available in this process.');
    const outcome = await createMcpGateway().callTool(
      builtin,
      'echo',
      {},
      { caller, signal: new AbortController().signal, timeoutMs: 1_000 },
    );
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/not available in this process/);
  });
});

describe('remote servers', () => {
  let fx: FixtureServer;
  beforeAll(async () => {
    fx = await startFixtureServer();
  });
  afterAll(() => fx.close());

  it('fail closed: without a guarded fetch a remote server is refused and never contacted', async () => {
    const server: McpServerConfig = { id: 'r', namespace: 'r', displayName: 'Remote', url: fx.url, trust: 'trusted', timeoutMs: 5_000 };
    const before = fx.requests.length;
    await expect(connect(server, caller, {})).rejects.toThrow(RemoteServersDisabled);
    const gateway = createMcpGateway({});
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.error).toBe(
      'Could not list its tools: Remote is a remote server, and remote servers are not enabled here (no guarded connection is configured).',
    );
    const outcome = await gateway.callTool(server, 'text', {}, { caller, signal: new AbortController().signal, timeoutMs: 1_000 });
    expect(outcome).toMatchObject({ kind: 'failed', message: expect.stringContaining('remote servers are not enabled here') });
    expect(fx.requests.length).toBe(before);
  });

  it('sends every request through the injected fetch (the URL guard seam), with the configured headers', async () => {
    const seen: string[] = [];
    const guarded: FetchLike = (url, init) => {
      seen.push(`${init?.method ?? 'GET'} ${String(url)} auth=${new Headers(init?.headers).get('authorization')}`);
      return fetch(url, init);
    };
    const server: McpServerConfig = {
      id: 'r',
      namespace: 'r',
      displayName: 'Remote',
      url: fx.url,
      trust: 'untrusted',
      timeoutMs: 5_000,
      headers: { Authorization: 'Bearer t0k' },
    };
    const client = await connect(server, caller, { fetch: guarded });
    await client.callTool({ name: 'text', arguments: {} });
    await closeQuietly(client);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((line) => line === `POST ${fx.url} auth=Bearer t0k`)).toBe(true);
  });

  it('does not fall back to HTTP+SSE on a server error', async () => {
    const broken = await startFixtureServer({ mode: 'http500', modeScope: 'all' });
    const methods: string[] = [];
    const server: McpServerConfig = {
      id: 'b',
      namespace: 'b',
      displayName: 'Broken',
      url: broken.url,
      trust: 'untrusted',
      timeoutMs: 3_000,
    };
    try {
      await expect(connect(server, caller, { fetch: (u, i) => (methods.push(i?.method ?? 'GET'), fetch(u, i)) })).rejects.toThrow(
        /HTTP 500/,
      );
      expect(methods).toEqual(['POST']); // no SSE GET attempted
    } finally {
      await broken.close();
    }
  });
});

describe('a URL where nothing speaks MCP', () => {
  it('tries HTTP+SSE after a 404, then reports the first answer', async () => {
    const methods: string[] = [];
    const http = createServer((req, res) => (methods.push(req.method ?? ''), res.writeHead(404).end('Cannot POST /nope')));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const { port } = http.address() as AddressInfo;
    const server: McpServerConfig = {
      id: 'n',
      namespace: 'n',
      displayName: 'Nope',
      url: `http://127.0.0.1:${port}/nope`,
      trust: 'untrusted',
      timeoutMs: 3_000,
    };
    try {
      const catalog = await createMcpGateway({ fetch: loopbackFetch }).listTools(server, caller);
      expect(catalog.error).toBe(`Nope (http://127.0.0.1:${port}) answered HTTP 404 when asked to list its tools: Cannot POST /nope.`);
      // The discovery probe, the legacy initialize it falls back to, then the HTTP+SSE stream.
      expect(methods).toEqual(['POST', 'POST', 'GET']);
    } finally {
      await new Promise<void>((r) => http.close(() => r()));
    }
  });
});

describe('shouldTrySse', () => {
  const http = (status: number) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `HTTP ${status}`, { status });
  it('falls back only on a 4xx that means "no POST here"', () => {
    expect(shouldTrySse(http(404))).toBe(true);
    expect(shouldTrySse(http(405))).toBe(true);
    expect(shouldTrySse(http(400))).toBe(true);
    expect(shouldTrySse(http(401))).toBe(false);
    expect(shouldTrySse(http(403))).toBe(false);
    expect(shouldTrySse(http(429))).toBe(false);
    expect(shouldTrySse(http(500))).toBe(false);
    expect(shouldTrySse(new TypeError('fetch failed'))).toBe(false);
  });
});
