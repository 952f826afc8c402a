import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it, vi } from 'vitest';

import { call, connectInProcess } from '@/test/fixtures/builtin-mcp-client';
import { fromWebHandler, listenOnLoopback } from '@/test/fixtures/node-web-adapter';

import {
  BUILTIN_SERVERS,
  builtinAuthInfo,
  builtinHandler,
  callerFromAuthInfo,
  closeBuiltinHandlers,
  createNotesServerHandler,
  createSandboxServerHandler,
  inProcessFetch,
} from './index';

const USER = '22222222-2222-4222-8222-222222222222';

describe('first-party server registry', () => {
  it('describes both servers as trusted builtins with their own namespace', () => {
    expect(BUILTIN_SERVERS.map((s) => [s.id, s.namespace, s.url])).toEqual([
      ['builtin-notes', 'notes', 'builtin://notes'],
      ['builtin-sandbox', 'sandbox', 'builtin://sandbox'],
    ]);
    for (const s of BUILTIN_SERVERS) expect(s).toMatchObject({ trust: 'trusted', timeoutMs: 60_000, builtin: true });
    expect(BUILTIN_SERVERS.find((s) => s.namespace === 'sandbox')!.displayName).toBe('Sandbox (JavaScript)');
  });

  it('caches one handler per namespace and asks for the database lazily', async () => {
    const getDb = vi.fn(async () => {
      throw new Error('not needed');
    });
    const sandbox = builtinHandler('sandbox', getDb);
    expect(builtinHandler('sandbox', getDb)).toBe(sandbox);
    expect(builtinHandler('notes', getDb)).toBe(builtinHandler('notes', getDb));
    expect(builtinHandler('notes', getDb)).not.toBe(sandbox);
    expect(getDb).not.toHaveBeenCalled();
    await closeBuiltinHandlers();
    expect(builtinHandler('sandbox', getDb)).not.toBe(sandbox);
    await closeBuiltinHandlers();
  });

  it("applies each person's sandbox limits (limitsFor their plan; the defaults when the plan cannot be read)", async () => {
    vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ sandboxRunsPerUser: 0 }));
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const getDb = vi.fn(async (): Promise<never> => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    });
    const client = await connectInProcess(builtinHandler('sandbox', getDb), builtinAuthInfo({ userId: USER }), 'builtin://sandbox');
    try {
      const r = await call(client, 'run_js', { code: '1 + 1' });
      expect(getDb).toHaveBeenCalled();
      expect(log).toHaveBeenCalledWith('[sandbox] could not read the plan:', expect.stringContaining('ECONNREFUSED'));
      expect(r.isError).toBe(true);
      expect(r.data!.error).toMatch(/^SandboxBusyError: .*at most 0 at once/);
    } finally {
      await client.close();
      await closeBuiltinHandlers();
      vi.unstubAllEnvs();
      log.mockRestore();
    }
  });

  it('round-trips the caller through authInfo and rejects malformed users', () => {
    const auth = builtinAuthInfo({ userId: USER, conversationId: 'c1' });
    expect(auth).toMatchObject({ token: 'builtin', clientId: 'switchboard', scopes: [] });
    expect(callerFromAuthInfo(auth)).toEqual({ userId: USER, conversationId: 'c1' });
    expect(callerFromAuthInfo(undefined)).toBeNull();
    expect(callerFromAuthInfo({ token: 't', clientId: 'c', scopes: [], extra: { userId: "1' or 1=1" } })).toBeNull();
  });
});

describe('notes handler without a database', () => {
  const failingDb = async (): Promise<never> => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:5432 select * from notes');
  };
  const handler = createNotesServerHandler(failingDb);
  afterAll(() => handler.close());

  it('ignores credentials a client sends itself: only the host authInfo names the user', async () => {
    const client = new Client({ name: 't', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('builtin://notes'), {
        fetch: inProcessFetch(handler, undefined),
        requestInit: { headers: { authorization: `Bearer ${USER}`, 'x-user-id': USER } },
      }),
    );
    const r = await call(client, 'search', { query: '' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('no signed-in user');
    await client.close();
  });

  it('reports a storage failure without leaking its details to the model', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const client = await connectInProcess(handler, builtinAuthInfo({ userId: USER }));
    const r = await call(client, 'search', { query: 'x' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('notes storage is unavailable');
    expect(r.text).not.toMatch(/ECONNREFUSED|select/);
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    await client.close();
  });
});

describe('over a real HTTP server on 127.0.0.1', () => {
  it('serves a tool call remotely through the same handler', async () => {
    const handler = createSandboxServerHandler();
    // As a remote deployment would mount the handler: node:http in front of its Web `fetch`.
    const server = await listenOnLoopback(fromWebHandler((request) => handler.fetch(request)));
    const client = new Client({ name: 't', version: '1' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`)));
      expect(client.getProtocolEra()).toBe('modern');
      const r = await call(client, 'run_js', { code: 'console.log("over http"); 2 ** 10' });
      expect(r.isError).toBe(false);
      expect(r.data).toMatchObject({ stdout: 'over http\n', result: '1024', error: null });
    } finally {
      await client.close();
      await server.close();
      await handler.close();
    }
  });
});
