import { OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser } from '@/db/queries/users';
import { createAccessToken, revokeAccessToken } from '@/lib/account/access-tokens';
import { connectWithToken, serveMcpRoutes, type McpEndpointServer } from '@/test/fixtures/mcp-endpoint';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * `/mcp` through its real route handlers on 127.0.0.1, reached by the official client SDK as a
 * third-party MCP client would (issue 25): who gets in, and what a refusal says.
 */
describe('/mcp: the endpoint and who may use it', () => {
  let h: DbHandle;
  let served: McpEndpointServer;
  beforeAll(async () => {
    h = await openRouteRuntime('mcp-endpoint');
    const mcp = await import('./route');
    const metadata = await import('../.well-known/oauth-protected-resource/mcp/route');
    served = await serveMcpRoutes({ mcp, metadata: metadata.GET });
  });
  afterAll(async () => {
    await served?.close();
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function personWithToken(name = 'CI') {
    const user = (await createUser(h.db, { email: `m-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const made = await createAccessToken(h.db, { id: user.id, plan: 'pro' }, { name, expiresIn: '7d' });
    return { userId: user.id, token: made.token, tokenId: made.id };
  }
  const post = (headers: Record<string, string>) =>
    fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });

  it('answers 401 without a token, naming the protected resource metadata, which validates', async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    const header = res.headers.get('www-authenticate');
    expect(header).toBe(`Bearer resource_metadata="${served.origin}/.well-known/oauth-protected-resource/mcp"`);
    expect((await res.json()).error.code).toBe('unauthorized:token');

    const doc = await fetch(`${served.origin}/.well-known/oauth-protected-resource/mcp`);
    expect(doc.status).toBe(200);
    const metadata = OAuthProtectedResourceMetadataSchema.parse(await doc.json());
    expect(metadata).toMatchObject({ resource: served.url, authorization_servers: [served.origin], bearer_methods_supported: ['header'] });
  });

  it('answers 401 with invalid_token for a malformed or unknown token, and never takes a session cookie', async () => {
    for (const authorization of ['Bearer nope', `Bearer sbp_${'A'.repeat(43)}`, 'Basic dXNlcjpwYXNz']) {
      const res = await post({ authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('www-authenticate'), authorization).toMatch(/^Bearer resource_metadata="[^"]+", error="invalid_token"/);
    }
    // A signed-in browser session of a person who has tokens is still not a way in.
    const { userId } = await personWithToken();
    const { cookie } = await sessionCookie(h.db, userId);
    const res = await post({ cookie });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).not.toContain('error=');
  });

  it('serves both protocol revisions to a token, and refuses a browser page of another origin', async () => {
    const { token } = await personWithToken();
    const modern = await connectWithToken(served.url, token);
    expect(modern.getProtocolEra()).toBe('modern');
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await modern.listTools()).tools).toEqual([]); // nothing is exposed until the person picks tools
    const legacy = await connectWithToken(served.url, token, { legacy: true });
    expect(legacy.getProtocolEra()).toBe('legacy');
    expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect((await legacy.listTools()).tools).toEqual([]);
    await Promise.all([modern.close(), legacy.close()]);

    const foreign = await post({ authorization: `Bearer ${token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe('forbidden:origin');
    const own = await post({ authorization: `Bearer ${token}`, origin: served.origin });
    expect(own.status).toBe(200);
  });

  it('cuts a revoked token off at its next request', async () => {
    const { userId, token, tokenId } = await personWithToken();
    const client = await connectWithToken(served.url, token);
    await client.listTools();
    await revokeAccessToken(h.db, userId, tokenId);
    await expect(client.listTools()).rejects.toThrow();
    const res = await post({ authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await res.json()).error.message).toMatch(/revoked/);
    await client.close();
  });
});
