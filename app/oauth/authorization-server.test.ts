import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/core';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createNote } from '@/db/queries/notes';
import { addMembership, insertOrg, setOrgPolicy } from '@/db/queries/orgs';
import { enableServer, insertServer } from '@/db/queries/servers';
import { createUser } from '@/db/queries/users';
import { accessTokens, auditEntries, oauthCodes, oauthTokens } from '@/db/schema';
import { DEFAULT_ORG_POLICY, type StoredAuditClientCall } from '@/db/stored-json';
import { buildServerCatalog, type RawTool } from '@/lib/mcp/catalog';
import { serveMcpRoutes, type McpEndpointServer } from '@/test/fixtures/mcp-endpoint';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { ThirdPartyOAuthClient } from '@/test/fixtures/oauth-third-party';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * Switchboard's own authorization server (issue 25): the metadata documents, dynamic registration
 * and client metadata documents, the consent POST, the token endpoint (PKCE, refresh rotation,
 * reuse), revocation, and /mcp taking the access tokens — the official client SDK's `auth()` as
 * the third-party client, every route handler real, on 127.0.0.1.
 */
describe('the OAuth authorization server for /mcp', () => {
  let h: DbHandle;
  let served: McpEndpointServer;
  let upstream: FixtureServer;
  let documents: Server;
  let docOrigin: string;
  let fixtureTools: RawTool[];
  let consentRoute: typeof import('../api/oauth/authorize/route');
  let oneToken: typeof import('../api/account/tokens/[id]/route');
  let clientsRoute: typeof import('../api/account/clients/route');
  /** Client metadata documents served on loopback, by path. */
  const docs = new Map<string, unknown>();

  beforeAll(async () => {
    h = await openRouteRuntime('oauth-as', { MCP_ALLOW_LOOPBACK: 'true' });
    upstream = await startFixtureServer();
    const probe = new Client({ name: 'probe', version: '1.0.0' });
    await probe.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    fixtureTools = (await probe.listTools()).tools as RawTool[];
    await probe.close();
    const mcp = await import('../mcp/route');
    const prm = await import('../.well-known/oauth-protected-resource/mcp/route');
    const asm = await import('../.well-known/oauth-authorization-server/route');
    const register = await import('./register/route');
    const token = await import('./token/route');
    const revoke = await import('./revoke/route');
    consentRoute = await import('../api/oauth/authorize/route');
    oneToken = await import('../api/account/tokens/[id]/route');
    clientsRoute = await import('../api/account/clients/route');
    served = await serveMcpRoutes({
      mcp,
      metadata: prm.GET,
      more: {
        '/.well-known/oauth-authorization-server': { GET: asm.GET },
        '/oauth/register': { POST: register.POST },
        '/oauth/token': { POST: token.POST },
        '/oauth/revoke': { POST: revoke.POST },
      },
    });
    documents = createServer((req, res) => {
      const doc = docs.get(req.url ?? '');
      res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(doc ?? { error: 'not found' }));
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    docOrigin = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    await upstream?.close();
    await new Promise((resolve) => documents?.close(resolve));
    vi.unstubAllEnvs();
    await h?.close();
  });

  const REDIRECT = 'http://127.0.0.1:45999/callback';
  async function person() {
    const user = (await createUser(h.db, { email: `o-${randomBytes(4).toString('hex')}@example.test` }))!;
    return { userId: user.id, cookie: (await sessionCookie(h.db, user.id)).cookie };
  }
  async function addUpstream(userId: string, namespace: string) {
    const row = (await insertServer(h.db, userId, {
      name: `Upstream ${namespace}`,
      namespace,
      url: upstream.url,
      trust: 'trusted',
      headersSealed: null,
      oauthClientId: null,
      oauthClientSecretSealed: null,
      timeoutMs: 5000,
    }))!;
    const catalog = buildServerCatalog(
      { id: row.id, namespace, displayName: row.name, url: upstream.url, trust: 'trusted', timeoutMs: 5000 },
      fixtureTools,
    );
    await enableServer(h.db, userId, row.id, Object.fromEntries(catalog.tools.map((t) => [t.name, t.fingerprint])));
  }
  /** The consent screen's Allow / Deny, as its page posts it. */
  const consent = (
    cookie: string | null,
    params: Record<string, string>,
    decision: 'allow' | 'deny',
    tools: string[] = [],
    origin = served.origin,
  ) =>
    consentRoute.POST(
      new Request(`${served.origin}/api/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}), ...(cookie ? { cookie } : {}) },
        body: JSON.stringify({ decision, tools, params }),
      }),
      { params: Promise.resolve({}) },
    );
  const form = (path: string, body: Record<string, string>) =>
    fetch(`${served.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
  const mcpPost = (token: string) =>
    fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };

  /** The SDK as a third-party client: discovery, registration, the authorization URL; then the person allows `tools`. */
  async function connectThroughConsent(cookie: string, tools: string[], name = 'Test Agent') {
    const provider = new ThirdPartyOAuthClient(name, REDIRECT);
    expect(await auth(provider, { serverUrl: served.url })).toBe('REDIRECT');
    const url = provider.authorizationUrl!;
    const res = await consent(cookie, Object.fromEntries(url.searchParams), 'allow', tools);
    expect(res.status).toBe(200);
    const back = new URL((await res.json()).redirectTo);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(url.searchParams.get('state'));
    expect(back.searchParams.get('iss')).toBe(served.origin);
    const code = back.searchParams.get('code')!;
    expect(await auth(provider, { serverUrl: served.url, authorizationCode: code, iss: served.origin })).toBe('AUTHORIZED');
    const client = new Client({ name, version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { authProvider: provider }));
    return { provider, client, authorizationUrl: url, code };
  }
  /** A registered client and an authorization code for it, without the SDK (for the token endpoint's refusals). */
  async function codeFor(cookie: string, tools: string[] = []) {
    const reg = await (
      await fetch(`${served.origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Raw client', redirect_uris: [REDIRECT] }),
      })
    ).json();
    const { verifier, challenge } = pkce();
    const params = {
      response_type: 'code',
      client_id: reg.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: served.url,
      state: 's1',
    };
    const res = await consent(cookie, params, 'allow', tools);
    const code = new URL((await res.json()).redirectTo).searchParams.get('code')!;
    return { clientId: reg.client_id as string, code, verifier, params };
  }
  const exchange = (clientId: string, code: string, verifier: string) =>
    form('/oauth/token', {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      resource: served.url,
    });

  it('publishes both metadata documents, valid against the SDK schemas, the resource naming this server', async () => {
    const asm = await (await fetch(`${served.origin}/.well-known/oauth-authorization-server`)).json();
    const metadata = OAuthMetadataSchema.parse(asm);
    expect(metadata).toMatchObject({
      issuer: served.origin,
      authorization_endpoint: `${served.origin}/oauth/authorize`,
      token_endpoint: `${served.origin}/oauth/token`,
      registration_endpoint: `${served.origin}/oauth/register`,
      revocation_endpoint: `${served.origin}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    });
    expect(asm.client_id_metadata_document_supported).toBe(true);
    const prm = OAuthProtectedResourceMetadataSchema.parse(
      await (await fetch(`${served.origin}/.well-known/oauth-protected-resource/mcp`)).json(),
    );
    expect(prm.authorization_servers).toEqual([metadata.issuer]);
    expect(prm.resource).toBe(served.url);
  });

  it('takes the SDK via discovery, registration, consent and tokens; it calls only what was picked, audited by its name', async () => {
    const ada = await person();
    const bob = await person();
    await createNote(h.db, ada.userId, { title: 'Ada plans', body: 'ship it' });
    await createNote(h.db, bob.userId, { title: 'Bob secrets', body: 'hidden' });
    await addUpstream(bob.userId, 'bobs');
    const { client, authorizationUrl } = await connectThroughConsent(ada.cookie, ['notes__search']);
    expect(authorizationUrl.pathname).toBe('/oauth/authorize');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(served.url);

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['notes__search']);
    const result = await client.callTool({ name: 'notes__search', arguments: { query: '' } });
    expect((result.structuredContent as { notes: { title: string }[] }).notes.map((n) => n.title)).toEqual(['Ada plans']);
    // Ada's client never reaches Bob's server, nor Ada's own tools she did not pick.
    for (const name of ['bobs__echo', 'notes__create']) {
      const refused = await client.callTool({ name, arguments: { text: 'x', title: 'x', body: 'x' } });
      expect(refused.isError, name).toBe(true);
    }
    expect(upstream.calls.length).toBe(0);

    const entries = (await h.db.select().from(auditEntries).where(eq(auditEntries.userId, ada.userId)).orderBy(asc(auditEntries.seq)))
      .map((e) => e.content)
      .filter((c): c is StoredAuditClientCall => c.kind === 'client_call');
    expect(entries.map((e) => [e.client.kind, e.client.name, e.name])).toEqual([['oauth_client', 'Test Agent', 'notes__search']]);

    const listed = await (
      await clientsRoute.GET(new Request(`${served.origin}/api/account/clients`, { headers: { cookie: ada.cookie } }), {
        params: Promise.resolve({}),
      })
    ).json();
    expect(listed.clients).toMatchObject([{ name: 'Test Agent', host: '127.0.0.1:45999', kind: 'registered', tools: ['notes__search'] }]);
    expect(listed.clients[0].lastUsedAt).not.toBeNull();
    // Bob sees nothing of Ada's connection.
    const bobs = await (
      await clientsRoute.GET(new Request(`${served.origin}/api/account/clients`, { headers: { cookie: bob.cookie } }), {
        params: Promise.resolve({}),
      })
    ).json();
    expect(bobs.clients).toEqual([]);

    // Revoked on the Account page: cut off at the next request.
    const del = await oneToken.DELETE(
      new Request(`${served.origin}/api/account/tokens/${listed.clients[0].id}`, {
        method: 'DELETE',
        headers: { origin: served.origin, cookie: ada.cookie },
      }),
      { params: Promise.resolve({ id: listed.clients[0].id }) },
    );
    expect(del.status).toBe(200);
    await expect(client.listTools()).rejects.toThrow();
    await client.close();
  });

  it("cannot widen its profile: no profile route by its token, no other person's tool at consent, a refresh keeps it", async () => {
    const ada = await person();
    const bob = await person();
    await addUpstream(bob.userId, 'bobs2');
    const { client, provider } = await connectThroughConsent(ada.cookie, ['notes__search']);
    const grant = (await h.db.select().from(accessTokens).where(eq(accessTokens.userId, ada.userId)))[0]!;
    const access = (await provider.tokens())!.access_token;
    const patched = await oneToken.PATCH(
      new Request(`${served.origin}/api/account/tokens/${grant.id}`, {
        method: 'PATCH',
        headers: { origin: served.origin, 'content-type': 'application/json', authorization: `Bearer ${access}` },
        body: JSON.stringify({ tools: ['notes__search', 'notes__create'] }),
      }),
      { params: Promise.resolve({ id: grant.id }) },
    );
    expect(patched.status).toBe(401);

    const bobsTool = await codeForRefused(ada.cookie, ['bobs2__echo']);
    expect(bobsTool.status).toBe(400);
    expect((await bobsTool.json()).error).toMatchObject({
      field: 'tools',
      message: expect.stringMatching(/"bobs2__echo" is not one of your tools/),
    });

    const refreshed = await form('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: (await provider.clientInformation())!.client_id,
      refresh_token: (await provider.tokens())!.refresh_token!,
      scope: 'everything admin',
    });
    expect(refreshed.status).toBe(200);
    const fresh = await refreshed.json();
    const res = await mcpPost(fresh.access_token);
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('notes__create');
    await client.close();
  });

  it("refuses at consent a tool the person's organization forbids, with the policy's reason", async () => {
    const ada = await person();
    const org = await insertOrg(h.db, { name: 'Acme' });
    await addMembership(h.db, org.id, ada.userId, 'member');
    await setOrgPolicy(h.db, org.id, { ...DEFAULT_ORG_POLICY, tools: { allow: null, deny: ['notes__create'] } });
    const refused = await codeForRefused(ada.cookie, ['notes__search', 'notes__create']);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatchObject({
      code: 'forbidden:org_policy',
      field: 'tools',
      message: 'tools: Your organization "Acme" does not allow the tool "notes__create".',
    });
    // An allowed pick still connects.
    const { client } = await connectThroughConsent(ada.cookie, ['notes__search']);
    await client.close();
  });

  async function codeForRefused(cookie: string, tools: string[]) {
    const { params } = await codeFor(cookie);
    return consent(cookie, params, 'allow', tools);
  }

  it('rotates refresh tokens; a rotated one presented again revokes the whole family', async () => {
    const ada = await person();
    const { clientId, code, verifier } = await codeFor(ada.cookie, ['notes__search']);
    const first = await (await exchange(clientId, code, verifier)).json();
    expect(first).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(first.access_token).toMatch(/^sba_/);
    expect(first.refresh_token).toMatch(/^sbr_/);
    const refresh = (token: string) => form('/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: token });
    const second = await (await refresh(first.refresh_token)).json();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await mcpPost(second.access_token)).status).toBe(200);

    const replay = await refresh(first.refresh_token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/already used: the connection is revoked/),
    });
    // The family is gone: the newest access and refresh tokens too.
    const cut = await mcpPost(second.access_token);
    expect(cut.status).toBe(401);
    expect(cut.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await refresh(second.refresh_token)).status).toBe(400);
    // Only hashes are stored.
    const stored = await h.db.select({ hash: oauthTokens.tokenHash }).from(oauthTokens);
    expect(stored.some((r) => r.hash === second.access_token || r.hash === second.refresh_token)).toBe(false);
    expect(stored.some((r) => r.hash === createHash('sha256').update(second.access_token).digest('hex'))).toBe(true);
  });

  it('refuses a wrong PKCE verifier, another redirect_uri or resource, and a second use of a code (revoking the first)', async () => {
    const ada = await person();
    const { clientId, code, verifier } = await codeFor(ada.cookie);
    const wrong = await exchange(clientId, code, pkce().verifier);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/PKCE/) });
    // A failed attempt used the code up: PKCE cannot be guessed at.
    expect((await exchange(clientId, code, verifier)).status).toBe(400);

    const other = await codeFor(ada.cookie);
    const elsewhere = await form('/oauth/token', {
      grant_type: 'authorization_code',
      client_id: other.clientId,
      code: other.code,
      code_verifier: other.verifier,
      redirect_uri: 'http://127.0.0.1:1/other',
    });
    expect(await elsewhere.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/redirect_uri/) });
    const target = await form('/oauth/token', {
      grant_type: 'authorization_code',
      client_id: other.clientId,
      code: other.code,
      code_verifier: other.verifier,
      redirect_uri: REDIRECT,
      resource: 'https://elsewhere.example/mcp',
    });
    expect(await target.json()).toMatchObject({ error: 'invalid_target' });

    const twice = await codeFor(ada.cookie);
    const ok = await (await exchange(twice.clientId, twice.code, twice.verifier)).json();
    expect((await mcpPost(ok.access_token)).status).toBe(200);
    const again = await exchange(twice.clientId, twice.code, twice.verifier);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/already used/) });
    expect((await mcpPost(ok.access_token)).status).toBe(401);
  });

  it('never redirects to a redirect URI the client did not register, and checks PKCE, resource and Origin on the consent', async () => {
    const ada = await person();
    const { params } = await codeFor(ada.cookie);
    const evil = await consent(ada.cookie, { ...params, redirect_uri: 'https://evil.example/cb' }, 'allow');
    expect(evil.status).toBe(400);
    const body = await evil.json();
    expect(body.error.message).toMatch(/is not one that Raw client registered/);
    expect(JSON.stringify(body)).not.toContain('redirectTo');

    // A self-registered client's bad request is refused here, not sent back to its address (see below).
    const refused = async (change: Record<string, string>, why: RegExp) => {
      const res = await consent(ada.cookie, { ...params, ...change }, 'allow');
      expect(res.status).toBe(400);
      const said = await res.json();
      expect(said.error.message).toMatch(why);
      expect(JSON.stringify(said)).not.toContain('redirectTo');
    };
    await refused({ code_challenge: '' }, /PKCE is required/);
    await refused({ code_challenge_method: 'plain' }, /S256/);
    await refused({ resource: 'https://other.example/mcp' }, /resource must be/);

    const denied = new URL((await (await consent(ada.cookie, params, 'deny')).json()).redirectTo);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('code')).toBeNull();
    expect(denied.searchParams.get('state')).toBe('s1');

    // Only our own pages, signed in, may consent.
    expect((await consent(ada.cookie, params, 'allow', [], 'https://evil.example')).status).toBe(403);
    expect((await consent(ada.cookie, params, 'allow', [], '')).status).toBe(403);
    expect((await consent(null, params, 'allow')).status).toBe(401);
    const codes = await h.db.select().from(oauthCodes).where(eq(oauthCodes.userId, ada.userId));
    expect(codes).toHaveLength(1); // the one codeFor made
  });

  it('reads a client metadata document through the URL guard: its client_id must match, its redirect_uris are the only ones', async () => {
    const ada = await person();
    const clientId = `${docOrigin}/good/client.json`;
    docs.set('/good/client.json', { client_id: clientId, client_name: 'Doc Client', redirect_uris: [REDIRECT] });
    const { challenge } = pkce();
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'd',
    };
    const ok = await (await consent(ada.cookie, params, 'allow')).json();
    expect(new URL(ok.redirectTo).searchParams.get('code')).toMatch(/^sbk_/);
    const notListed = await consent(ada.cookie, { ...params, redirect_uri: 'http://127.0.0.1:45999/other' }, 'allow');
    expect((await notListed.json()).error.message).toMatch(/is not one that Doc Client registered/);

    const liar = `${docOrigin}/liar/client.json`;
    docs.set('/liar/client.json', { client_id: 'https://claude.ai/oauth/client.json', client_name: 'Claude', redirect_uris: [REDIRECT] });
    const lied = await consent(ada.cookie, { ...params, client_id: liar }, 'allow');
    expect((await lied.json()).error.message).toMatch(/names another client_id/);
    const missing = await consent(ada.cookie, { ...params, client_id: `${docOrigin}/nothing.json` }, 'allow');
    expect((await missing.json()).error.message).toMatch(/could not be fetched: it answered HTTP 404/);
    // A private address is refused by the guard before anything is fetched.
    const inside = await consent(ada.cookie, { ...params, client_id: 'http://10.0.0.1/client.json' }, 'allow');
    expect((await inside.json()).error.message).toMatch(/cannot be used as a client metadata document/);
  });

  it('sends an error back only to a client whose address its own host vouches for: a self-registered one is shown it here', async () => {
    const { checkAuthorizeRequest } = await import('@/lib/oauth-server/authorize');
    const reg = await (
      await fetch(`${served.origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Anyone', redirect_uris: [REDIRECT] }),
      })
    ).json();
    const bad = { response_type: 'token', redirect_uri: REDIRECT, state: 'x' };
    expect(await checkAuthorizeRequest({ db: h.db }, { ...bad, client_id: reg.client_id }, served.origin)).toEqual({
      kind: 'show_error',
      message: 'Anyone sent a request Switchboard cannot use: response_type must be "code".',
    });
    const clientId = `${docOrigin}/vouched/client.json`;
    docs.set('/vouched/client.json', { client_id: clientId, client_name: 'Vouched', redirect_uris: [REDIRECT] });
    const vouched = await checkAuthorizeRequest({ db: h.db }, { ...bad, client_id: clientId }, served.origin);
    expect(vouched.kind).toBe('redirect');
    expect(vouched.kind === 'redirect' && new URL(vouched.url).searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('revokes through RFC 7009: a refresh token ends the connection, an unknown token is answered 200 all the same', async () => {
    const ada = await person();
    const { clientId, code, verifier } = await codeFor(ada.cookie);
    const tokens = await (await exchange(clientId, code, verifier)).json();
    expect((await form('/oauth/revoke', { token: 'sbr_nothing', client_id: clientId })).status).toBe(200);
    expect((await mcpPost(tokens.access_token)).status).toBe(200);
    expect(
      (await form('/oauth/revoke', { token: tokens.refresh_token, client_id: clientId, token_type_hint: 'refresh_token' })).status,
    ).toBe(200);
    expect((await mcpPost(tokens.access_token)).status).toBe(401);
  });

  it('registers public clients only with valid redirect URIs (RFC 7591 errors)', async () => {
    const register = (body: unknown) =>
      fetch(`${served.origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ok = await register({
      client_name: 'Cursor',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ client_id: expect.stringMatching(/^sbc_/), token_endpoint_auth_method: 'none' });
    for (const [redirect, why] of [
      ['http://evil.example/cb', /not loopback/],
      ['javascript:alert(1)', /not allowed/],
      ['https://a.example/cb#x', /fragment/],
    ] as const) {
      const res = await register({ redirect_uris: [redirect] });
      expect(res.status, redirect).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringMatching(why) });
    }
    expect(await (await register({ client_name: 'x' })).json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/^redirect_uris: /),
    });
  });
});
