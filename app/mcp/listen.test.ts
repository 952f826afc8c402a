import { randomBytes } from 'node:crypto';
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser } from '@/db/queries/users';
import { connectWithToken, serveMcpRoutes, type McpEndpointServer } from '@/test/fixtures/mcp-endpoint';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * A client's `subscriptions/listen` streams on `/mcp` (issue 25): revoking the client closes what
 * it holds open — on the instance where the person revoked it and on any other — rather than only
 * refusing its next request; and one client holds at most `mcpListenStreams` at once, the extra
 * refused in words. Real route handlers on 127.0.0.1 and the official client SDK; PGlite only, as
 * the other /mcp suites.
 */
describe('/mcp: listen streams', () => {
  let h: DbHandle;
  let served: McpEndpointServer;
  let tokens: typeof import('../api/account/tokens/route');
  let oneToken: typeof import('../api/account/tokens/[id]/route');

  beforeAll(async () => {
    h = await openRouteRuntime('mcp-listen', {});
    const mcp = await import('./route');
    const metadata = await import('../.well-known/oauth-protected-resource/mcp/route');
    tokens = await import('../api/account/tokens/route');
    oneToken = await import('../api/account/tokens/[id]/route');
    served = await serveMcpRoutes({ mcp, metadata: metadata.GET });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function person() {
    const user = (await createUser(h.db, { email: `p-${randomBytes(4).toString('hex')}@example.test` }))!;
    return { userId: user.id, cookie: (await sessionCookie(h.db, user.id)).cookie };
  }
  const request = (method: string, cookie: string, path: string, body?: unknown) =>
    new Request(`http://localhost${path}`, {
      method,
      headers: { origin: 'http://localhost', 'content-type': 'application/json', cookie },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  async function createToken(cookie: string): Promise<{ id: string; token: string }> {
    const body = { name: 'listener', tools: ['notes__search'] };
    const res = await tokens.POST(request('POST', cookie, '/api/account/tokens', body), { params: Promise.resolve({}) });
    expect(res.status).toBe(201);
    return res.json();
  }
  async function revoke(cookie: string, id: string) {
    const res = await oneToken.DELETE(request('DELETE', cookie, `/api/account/tokens/${id}`), { params: Promise.resolve({ id }) });
    expect(res.status).toBe(200);
  }
  /** How the stream ended, or 'still open' after `ms` (well under the 30 s recheck every stream gets anyway). */
  const endOf = (sub: McpSubscription, ms = 5_000) =>
    Promise.race([sub.closed, new Promise<string>((resolve) => setTimeout(() => resolve('still open'), ms))]);
  const listen = (client: Client) => client.listen({ toolsListChanged: true });

  it("closes a revoked client's open listen stream at once, on this instance and on another one", async () => {
    const { getRuntime } = await import('@/lib/server/runtime');
    const { createEventBus } = await import('@/lib/agent/bus');
    const { createGatewayEndpoint } = await import('@/lib/gateway/service');
    const { requestStateKey } = await import('@/lib/gateway/elicit-approval');
    const rt = await getRuntime();
    // A second instance: its own endpoint and its own event bus, the same database.
    const endpoint = createGatewayEndpoint({
      db: h.db,
      tools: rt.tools.host,
      auditKeys: rt.engine.auditKeys,
      bus: createEventBus(h),
      approvalWaitMs: 120_000,
      stateKey: requestStateKey(rt.secret),
    });
    const serve = (req: Request) => endpoint.serve(req);
    const other = await serveMcpRoutes({ mcp: { GET: serve, POST: serve, DELETE: serve }, metadata: () => new Response(null) });
    try {
      const ada = await person();
      const [here, there, kept] = [await createToken(ada.cookie), await createToken(ada.cookie), await createToken(ada.cookie)];
      const a = await connectWithToken(served.url, here.token);
      const b = await connectWithToken(other.url, there.token);
      const c = await connectWithToken(served.url, kept.token);
      const [subA, subB, subC] = [await listen(a), await listen(b), await listen(c)];
      // A request after the streams opened: its statements run after the other instance's LISTEN on the one PGlite.
      expect((await b.listTools()).tools.map((t) => t.name)).toEqual(['notes__search']);

      await revoke(ada.cookie, here.id);
      expect(await endOf(subA)).toBe('remote');
      // Revoked through this suite's runtime; the stream is held by the other instance.
      await revoke(ada.cookie, there.id);
      expect(await endOf(subB)).toBe('remote');
      // The person's other client keeps its stream.
      expect(await endOf(subC, 300)).toBe('still open');
      await expect(a.listTools()).rejects.toThrow(/Unauthorized/);
      await subC.close();
      await Promise.all([a.close(), b.close(), c.close()]);
    } finally {
      await other.close();
      await endpoint.close();
    }
  });

  it('holds at most mcpListenStreams streams of one client, refusing the extra in words', async () => {
    const ada = await person();
    const made = await createToken(ada.cookie);
    const client = await connectWithToken(served.url, made.token);
    const open = [await listen(client), await listen(client), await listen(client)];
    await expect(listen(client)).rejects.toThrow(
      'Limit reached on the pro plan: at most 3 open listen streams per MCP client. Close one of them (or reuse it: ' +
        'one stream carries every change notification) before opening another.',
    );
    // Another client of the same person is not held to this one's count.
    const other = await connectWithToken(served.url, (await createToken(ada.cookie)).token);
    const theirs = await listen(other);
    // One closed, one more may open.
    await open[0]!.close();
    await expect
      .poll(
        async () =>
          listen(client)
            .then((s) => (open.push(s), true))
            .catch(() => false),
        { timeout: 5_000 },
      )
      .toBe(true);
    await Promise.all([...open.slice(1), theirs].map((s) => s.close()));
    await Promise.all([client.close(), other.close()]);
  });
});
