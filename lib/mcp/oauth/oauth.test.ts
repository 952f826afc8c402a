import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

import { openPostgres, type DbHandle } from '@/db/connection';
import { getCredential } from '@/db/queries/oauth';
import { oauthCredentials, oauthFlows } from '@/db/schema';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { startOAuthFixture, type OAuthFixture } from '@/test/fixtures/oauth-fixture';
import { loopbackFetch } from '@/test/loopback-fetch';
import { approveAt, makeUserWithSession, oauthDeps, startClientMetadataHost, testSecretBox } from '@/test/oauth-harness';

import { createMcpGateway } from '../gateway';
import type { CallOutcome, McpServerConfig } from '../types';
import { accessToken, credentialForServer, openTokens, resourceCandidates } from './credentials';
import { completeSignIn, disconnect, forgetServerOAuth, startSignIn } from './flows';
import { gatewayOAuth } from './index';
import { refreshExpiringCredentials } from './refresh-ahead';
import type { OAuthDeps, OAuthServerRef } from './types';

/**
 * OAuth against a real authorization server + protected MCP server on 127.0.0.1
 * (test/fixtures/oauth-fixture.ts), on PGlite and on Postgres when DATABASE_URL is set.
 */

describe.each(TEST_DATABASES.filter((d) => d.available))('OAuth for remote servers ($kind)', ({ kind }) => {
  let handle: DbHandle & { url?: string };
  let fx: OAuthFixture;
  let app: { origin: string; close(): Promise<void> };
  let deps: OAuthDeps;
  let user: { userId: string; sessionId: string };
  let server: McpServerConfig & OAuthServerRef;

  beforeAll(async () => {
    handle = await openTestDb(kind);
    app = await startClientMetadataHost();
  });
  afterAll(async () => {
    await app.close();
    await handle.close();
  });
  beforeEach(async () => {
    fx = await startOAuthFixture();
    deps = oauthDeps(handle.db, app.origin);
    user = await makeUserWithSession(handle.db);
    server = { id: crypto.randomUUID(), namespace: 'fx', displayName: 'Fixture', url: fx.url, trust: 'untrusted', timeoutMs: 5_000 };
  });
  afterEach(() => fx.close());

  const gatewayFor = (d: OAuthDeps = deps) => createMcpGateway({ fetch: d.fetch, oauth: gatewayOAuth(d) });
  const call = (tool = 'whoami', d: OAuthDeps = deps): Promise<CallOutcome> =>
    gatewayFor(d).callTool(server, tool, {}, { caller: { userId: user.userId }, signal: new AbortController().signal, timeoutMs: 5_000 });
  const loadServer = async (id: string) => (id === server.id ? server : null);

  async function signIn(d: OAuthDeps = deps, who = user) {
    const { authorizationUrl } = await startSignIn(d, { ...who, server, returnTo: '/servers' });
    const params = await approveAt(authorizationUrl);
    return completeSignIn(d, { ...who, params, loadServer });
  }

  it('a first call needs sign-in; after connecting, the token is used and the tool runs', async () => {
    const before = await call();
    expect(before).toMatchObject({
      kind: 'needs_sign_in',
      serverId: server.id,
      serverName: 'Fixture',
      reason: 'first_use',
      scopes: ['mcp:read'],
    });

    const { authorizationUrl } = await startSignIn(deps, { ...user, server, returnTo: '/c/1' });
    const asked = new URL(authorizationUrl).searchParams;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('resource')).toBe(fx.url); // RFC 8707
    expect(asked.get('scope')?.split(' ')).toContain('mcp:read'); // from WWW-Authenticate
    expect(asked.get('client_id')).toBe(`${app.origin}/oauth/client-metadata.json`); // CIMD
    expect(fx.counts.registrations).toBe(0);
    expect(fx.counts.cimdFetches).toBe(0);

    const params = await approveAt(authorizationUrl);
    expect(params.get('iss')).toBe(fx.issuer);
    const done = await completeSignIn(deps, { ...user, params, loadServer });
    expect(done).toEqual({ serverId: server.id, returnTo: '/c/1' });
    expect(fx.counts.cimdFetches).toBe(1);

    const after = await call();
    expect(after).toMatchObject({ kind: 'result' });
    expect(fx.calls.at(-1)).toMatchObject({ name: 'whoami' });
    // Sealed at rest: no token in the row's text.
    const [row] = await handle.db.select().from(oauthCredentials).where(eq(oauthCredentials.userId, user.userId));
    expect(row!.issuer).toBe(fx.issuer);
    expect(row!.resource).toBe(fx.url);
    const tokens = openTokens(deps.box, row!);
    expect(JSON.stringify(row)).not.toContain(tokens!.access_token);
    expect(JSON.stringify(row)).not.toContain(tokens!.refresh_token!);
  });

  it('falls back to dynamic registration when the server does not take client ID metadata documents', async () => {
    await fx.close();
    fx = await startOAuthFixture({ cimd: false });
    server.url = fx.url;
    await signIn();
    expect(fx.counts.registrations).toBe(1);
    expect(fx.authorizeRequests[0]!.get('client_id')).toMatch(/^dcr_/);
    expect(await call()).toMatchObject({ kind: 'result' });
    // A second sign-in reuses the registered client.
    await signIn();
    expect(fx.counts.registrations).toBe(1);
  });

  it("uses the server's pre-registered client when it has one", async () => {
    await fx.close();
    fx = await startOAuthFixture({ preRegistered: { clientId: 'pre-1', clientSecret: 's3cret' } });
    server.url = fx.url;
    server.oauthClient = { clientId: 'pre-1', clientSecret: 's3cret' };
    await signIn();
    expect(fx.authorizeRequests[0]!.get('client_id')).toBe('pre-1');
    expect(fx.counts.registrations).toBe(0);
    expect(await call()).toMatchObject({ kind: 'result' });
  });

  it('refreshes an expiring token before using it; the rotated refresh token replaces the old one', async () => {
    await signIn();
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    const first = openTokens(deps.box, cred)!;
    // Pretend the token expires in 30 s: inside the refresh window.
    await handle.db
      .update(oauthCredentials)
      .set({ expiresAt: new Date(Date.now() + 30_000) })
      .where(eq(oauthCredentials.id, cred.id));
    expect(await call()).toMatchObject({ kind: 'result' });
    expect(fx.counts.refresh).toBe(1);
    const second = openTokens(deps.box, (await getCredential(handle.db, cred.id))!)!;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);

    // The server refuses the token (expired there): one refresh with the NEW refresh token, then the call runs.
    fx.expireAccessTokens();
    expect(await call()).toMatchObject({ kind: 'result' });
    expect(fx.counts.refresh).toBe(2);
    expect(fx.counts.replays).toBe(0); // the rotated-out token was never sent again
  });

  it('two concurrent refreshes (two processes sharing the database) make exactly one token request', async () => {
    await fx.close();
    fx = await startOAuthFixture({ tokenDelayMs: 300 });
    server.url = fx.url;
    await signIn();
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    await handle.db
      .update(oauthCredentials)
      .set({ expiresAt: new Date(Date.now() + 10_000) })
      .where(eq(oauthCredentials.id, cred.id));
    // Separate deps objects stand for separate processes: no shared in-process de-duplication,
    // only the claim in the database. On Postgres the second one has its own connection pool.
    const other = handle.url ? await openPostgres(handle.url, { max: 2 }) : null;
    const [ta, tb] = await Promise.all([
      accessToken({ ...deps }, cred.id),
      accessToken({ ...deps, ...(other && { db: other.db }) }, cred.id),
    ]).finally(() => other?.close());
    expect(ta).toBeDefined();
    expect(ta).toBe(tb);
    expect(fx.counts.refresh).toBe(1);
    expect(fx.counts.replays).toBe(0);
  });

  it('step-up: a tool that needs more scope asks for a new sign-in with the union of scopes', async () => {
    await signIn();
    const stepped = await call('admin_write');
    expect(stepped).toMatchObject({ kind: 'needs_sign_in', serverId: server.id, reason: 'insufficient_scope' });
    const scopes = (stepped as { scopes?: string[] }).scopes ?? [];
    expect(scopes).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));

    await signIn();
    const asked = fx.authorizeRequests.at(-1)!.get('scope')!.split(' ');
    expect(asked).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    expect(await call('admin_write')).toMatchObject({ kind: 'result' });
    expect(fx.calls.at(-1)!.scopes).toContain('mcp:write');
  });

  it('a revoked grant turns into needs sign-in (the dead credential is kept but has no tokens)', async () => {
    await signIn();
    expect(await call()).toMatchObject({ kind: 'result' });
    fx.revokeAll();
    expect(await call()).toMatchObject({ kind: 'needs_sign_in', reason: 'expired' });
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    expect(cred.tokens).toBeNull();
    expect(await call()).toMatchObject({ kind: 'needs_sign_in' });
  });

  it('refuses a reused state, a state started by another user or session, and a wrong iss', async () => {
    const { authorizationUrl } = await startSignIn(deps, { ...user, server, returnTo: '/' });
    const params = await approveAt(authorizationUrl);

    const other = await makeUserWithSession(handle.db);
    await expect(completeSignIn(deps, { ...other, params, loadServer })).rejects.toMatchObject({ code: 'not_yours' });
    const otherSession = await makeUserWithSession(handle.db);
    await expect(
      completeSignIn(deps, { userId: user.userId, sessionId: otherSession.sessionId, params, loadServer }),
    ).rejects.toMatchObject({
      code: 'not_yours',
    });

    await completeSignIn(deps, { ...user, params, loadServer });
    await expect(completeSignIn(deps, { ...user, params, loadServer })).rejects.toMatchObject({ code: 'used' });

    const forged = new URLSearchParams({ code: 'x', state: 'never-issued' });
    await expect(completeSignIn(deps, { ...user, params: forged, loadServer })).rejects.toMatchObject({ code: 'unknown_state' });

    fx.behaviour.iss = 'https://evil.example';
    const second = await startSignIn(deps, { ...user, server, returnTo: '/' });
    const mixedUp = await approveAt(second.authorizationUrl);
    const codesBefore = fx.counts.authorizationCode;
    await expect(completeSignIn(deps, { ...user, params: mixedUp, loadServer })).rejects.toMatchObject({ code: 'wrong_issuer' });
    expect(fx.counts.authorizationCode).toBe(codesBefore); // the code was never redeemed
  });

  it('only the hash of state is stored, and the code verifier is sealed', async () => {
    const { authorizationUrl } = await startSignIn(deps, { ...user, server, returnTo: '/' });
    const state = new URL(authorizationUrl).searchParams.get('state')!;
    const [flow] = await handle.db.select().from(oauthFlows).where(eq(oauthFlows.userId, user.userId));
    expect(JSON.stringify(flow)).not.toContain(state);
    expect(flow!.codeVerifier.startsWith('v2.')).toBe(true);
  });

  it('a key rotation (the old key kept as previous) keeps credentials readable', async () => {
    const oldBox = testSecretBox('key-one');
    await signIn({ ...deps, box: oldBox });
    const rotated = { ...deps, box: testSecretBox('key-two', 'key-one') };
    expect(await call('whoami', rotated)).toMatchObject({ kind: 'result' });
    // A refresh under the new key seals with it.
    fx.expireAccessTokens();
    expect(await call('whoami', rotated)).toMatchObject({ kind: 'result' });
    const cred = (await credentialForServer(rotated, user.userId, server.url))!;
    expect(cred.tokens!.split('.')[1]).toBe(rotated.box.keyId);
  });

  it("another user's tokens copied into this user's credential do not open there: sign in again, nothing sent", async () => {
    const other = await makeUserWithSession(handle.db);
    await signIn(deps, other);
    await signIn(deps, user);
    const [theirs] = await handle.db.select().from(oauthCredentials).where(eq(oauthCredentials.userId, other.userId));
    // Someone with write access to the database hands the other user's sealed tokens (and client) to this one.
    await handle.db
      .update(oauthCredentials)
      .set({ tokens: theirs!.tokens, clientInfo: theirs!.clientInfo })
      .where(eq(oauthCredentials.userId, user.userId));
    const mine = (await credentialForServer(deps, user.userId, server.url, { fresh: true }))!;
    expect(() => openTokens(deps.box, mine)).toThrow(/oauth_credentials\.tokens failed its integrity check/);

    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const toolCalls = fx.calls.length;
    try {
      // A dead credential, as a revoked grant is: a clear "sign in again", not a crash, and no token sent.
      expect(await call()).toMatchObject({ kind: 'needs_sign_in', serverId: server.id, reason: 'expired' });
      expect(fx.calls.length).toBe(toolCalls);
      expect(await accessToken(deps, mine.id)).toBeUndefined();
      expect(errors.mock.calls.map((c) => c.map(String).join(' ')).join('\n')).toMatch(/credential .* cannot be opened/);
      // A new sign-in replaces the copied values with this user's own; the other user's are untouched.
      await signIn(deps, user);
      expect(await call()).toMatchObject({ kind: 'result' });
      const theirsAfter = (await credentialForServer(deps, other.userId, server.url, { fresh: true }))!;
      expect(openTokens(deps.box, theirsAfter)?.access_token).toBeTruthy();
    } finally {
      errors.mockRestore();
    }
  });

  it('disconnect revokes at the provider, then forgets the credential', async () => {
    await signIn();
    const result = await disconnect(deps, user.userId, server);
    expect(result).toEqual({ revoked: true, hadCredential: true });
    expect(fx.counts.revocations).toBeGreaterThanOrEqual(1);
    expect(await credentialForServer(deps, user.userId, server.url)).toBeNull();
    expect(await call()).toMatchObject({ kind: 'needs_sign_in' });
  });

  it("a URL change drops the server's credentials, revoked at the provider, and flows", async () => {
    await signIn();
    await startSignIn(deps, { ...user, server, returnTo: '/' });
    const forgotten = await forgetServerOAuth(deps, user.userId, server.id, server.url, { otherServerUrls: [], ...deps });
    expect(forgotten).toEqual({ forgotten: 1, revoked: 1, kept: 0 });
    expect(fx.counts.revocations).toBe(2); // the refresh token, then the access token
    expect(await credentialForServer(deps, user.userId, server.url, { fresh: true })).toBeNull();
    expect(await handle.db.select().from(oauthFlows).where(eq(oauthFlows.userId, user.userId))).toEqual([]);
  });

  it("keeps a credential another of the user's servers finds (same resource or under it), and revokes nothing", async () => {
    await signIn();
    for (const other of [fx.url, `${fx.url}/tenant-b`]) {
      const forgotten = await forgetServerOAuth(deps, user.userId, server.id, server.url, { otherServerUrls: [other], ...deps });
      expect(forgotten).toEqual({ forgotten: 0, revoked: 0, kept: 1 });
    }
    // A server elsewhere on the origin does not find it: it goes.
    const elsewhere = `${fx.origin}/other/mcp`;
    expect(await forgetServerOAuth(deps, user.userId, server.id, server.url, { otherServerUrls: [elsewhere] })).toEqual({
      forgotten: 1,
      revoked: 0, // no box or fetch given: forgotten only
      kept: 0,
    });
    expect(fx.counts.revocations).toBe(0);
  });

  it('the fixture detects a replayed refresh token (so "replays: 0" above means none was sent)', async () => {
    await signIn();
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    const old = openTokens(deps.box, cred)!.refresh_token!;
    fx.expireAccessTokens();
    expect(await call()).toMatchObject({ kind: 'result' }); // refreshed with `old`, rotated
    const replay = await loopbackFetch(`${fx.origin}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: old, client_id: `${app.origin}/oauth/client-metadata.json` }),
    });
    expect(replay.status).toBe(400);
    expect(fx.counts.replays).toBe(1);
    expect(await call()).toMatchObject({ kind: 'needs_sign_in' }); // the whole grant ended
  });

  it('never writes a token, code or verifier to the logs, errors or a failure message', async () => {
    const logged: string[] = [];
    const spies = (['log', 'warn', 'error', 'info'] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' '))),
    );
    try {
      const { authorizationUrl } = await startSignIn(deps, { ...user, server, returnTo: '/' });
      const params = await approveAt(authorizationUrl);
      await completeSignIn(deps, { ...user, params, loadServer });
      const cred = (await credentialForServer(deps, user.userId, server.url))!;
      const tokens = openTokens(deps.box, cred)!;
      fx.expireAccessTokens();
      await call();
      fx.revokeAll();
      const outcome = await call();
      const reused = await completeSignIn(deps, { ...user, params, loadServer }).catch((e: Error) => e.message);
      const secrets = [tokens.access_token, tokens.refresh_token!, params.get('code')!, params.get('state')!];
      for (const text of [...logged, JSON.stringify(outcome), String(reused)]) {
        for (const secret of secrets) expect(text).not.toContain(secret);
      }
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
  });

  it('an unreachable authorization server fails the call (try again) and keeps the credential', async () => {
    await signIn();
    const tokenDown: OAuthDeps = {
      ...deps,
      fetch: (url, init) =>
        new URL(url.toString()).pathname === '/token' ? Promise.reject(new TypeError('fetch failed')) : deps.fetch(url, init),
    };
    // Early refresh fails: the token, still valid, serves meanwhile.
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    await handle.db
      .update(oauthCredentials)
      .set({ expiresAt: new Date(Date.now() + 30_000) })
      .where(eq(oauthCredentials.id, cred.id));
    expect(await call('whoami', tokenDown)).toMatchObject({ kind: 'result' });
    // Refused by the server and no way to refresh: a failure in words, not a sign-in.
    fx.expireAccessTokens();
    const outcome = await call('whoami', tokenDown);
    expect(outcome).toMatchObject({ kind: 'failed' });
    expect((outcome as { message: string }).message).toMatch(/sign-in could not be renewed/);
    expect((await credentialForServer(deps, user.userId, server.url))!.tokens).not.toBeNull();
    expect(await call()).toMatchObject({ kind: 'result' }); // back up: refreshed and used
  });

  /** The credential's access token issued `ageMs` ago, expiring in `leftMs`, last used by a call `usedAgoMs` ago. */
  async function setTimes(id: string, t: { leftMs: number; ageMs: number; usedAgoMs: number }) {
    const now = Date.now();
    await handle.db
      .update(oauthCredentials)
      .set({ expiresAt: new Date(now + t.leftMs), updatedAt: new Date(now - t.ageMs), lastUsedAt: new Date(now - t.usedAgoMs) })
      .where(eq(oauthCredentials.id, id));
  }

  it('the background refresh takes a short-lived token only past half its lifetime, and only if a call used it lately', async () => {
    await signIn();
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    expect(cred.lastUsedAt).toBeNull();
    expect(await call()).toMatchObject({ kind: 'result' });
    expect((await getCredential(handle.db, cred.id))!.lastUsedAt).not.toBeNull(); // the call noted its use
    const tick = () => refreshExpiringCredentials(deps, { windowMs: 2 * 60_000 });
    const refreshes = fx.counts.refresh;
    // A 5-minute token, 30 s old: within the window (100 s left) but not half used, left alone.
    await setTimes(cred.id, { leftMs: 100_000, ageMs: 30_000, usedAgoMs: 0 });
    expect(await tick()).toMatchObject({ checked: 0, refreshed: 0 });
    // The same token unused for two hours: left alone too (renewed at its next use).
    await setTimes(cred.id, { leftMs: 100_000, ageMs: 200_000, usedAgoMs: 2 * 60 * 60_000 });
    expect(await tick()).toMatchObject({ checked: 0, refreshed: 0 });
    expect(fx.counts.refresh).toBe(refreshes);
    // Past half its lifetime and in use: refreshed, once.
    await setTimes(cred.id, { leftMs: 100_000, ageMs: 200_000, usedAgoMs: 0 });
    expect(await tick()).toMatchObject({ checked: 1, refreshed: 1 });
    expect(fx.counts.refresh).toBe(refreshes + 1);
    // Just refreshed (a fresh lifetime): the next tick leaves it.
    expect(await tick()).toMatchObject({ checked: 0 });
  });

  it('the background refresh skips credentials without a refresh token and backs off one that failed', async () => {
    await signIn();
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    const tokenDown: OAuthDeps = {
      ...deps,
      fetch: (url, init) =>
        new URL(url.toString()).pathname === '/token' ? Promise.reject(new TypeError('fetch failed')) : deps.fetch(url, init),
    };
    await setTimes(cred.id, { leftMs: 100_000, ageMs: 200_000, usedAgoMs: 0 });
    const failed = await refreshExpiringCredentials(tokenDown, { windowMs: 2 * 60_000 });
    expect(failed.failed.map((f) => f.credentialId)).toEqual([cred.id]);
    // Backed off in this instance: the next tick does not take it (so it cannot fill the batch).
    expect(await refreshExpiringCredentials(tokenDown, { windowMs: 2 * 60_000 })).toMatchObject({ checked: 0, failed: [] });
    // Tokens without a refresh token are never taken.
    await handle.db.update(oauthCredentials).set({ refreshable: false }).where(eq(oauthCredentials.id, cred.id));
    const elsewhere: OAuthDeps = { ...deps }; // another instance: nothing backed off
    expect(await refreshExpiringCredentials(elsewhere, { windowMs: 2 * 60_000 })).toMatchObject({ checked: 0 });
    await handle.db.update(oauthCredentials).set({ refreshable: true }).where(eq(oauthCredentials.id, cred.id));
    expect(await refreshExpiringCredentials(elsewhere, { windowMs: 2 * 60_000 })).toMatchObject({ checked: 1, refreshed: 1 });
  });

  it('a token endpoint trickling its body is given up after the refresh timeout; the tick ends and releases the claim', async () => {
    await signIn();
    const cred = (await credentialForServer(deps, user.userId, server.url))!;
    await setTimes(cred.id, { leftMs: 2 * 60_000, ageMs: 58 * 60_000, usedAgoMs: 0 });
    const timers: NodeJS.Timeout[] = [];
    // Headers at once, then a byte every 50 ms, never the end: no connect or header timeout sees it.
    const trickle = (): Response => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{'));
          timers.push(setInterval(() => controller.enqueue(new TextEncoder().encode(' ')), 50));
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const slow: OAuthDeps = {
      ...deps,
      refreshTimeoutMs: 300,
      fetch: (url, init) => (new URL(url.toString()).pathname === '/token' ? Promise.resolve(trickle()) : deps.fetch(url, init)),
    };
    try {
      const startedAt = Date.now();
      const report = await refreshExpiringCredentials(slow, { windowMs: 5 * 60_000 });
      expect(Date.now() - startedAt).toBeLessThan(3_000);
      expect(report.failed.map((f) => f.credentialId)).toEqual([cred.id]);
      const after = (await getCredential(handle.db, cred.id))!;
      expect(after.refreshingUntil).toBeNull();
      expect(after.tokens).not.toBeNull(); // kept: tried again later
    } finally {
      timers.forEach(clearInterval);
    }
    // A tick past its deadline starts no further refresh: the rest wait for the next tick.
    const late = await refreshExpiringCredentials(deps, { windowMs: 5 * 60_000, deadlineMs: 0 });
    expect(late).toMatchObject({ checked: 1, refreshed: 0, deferred: 1 });
  });

  it('a server known to have no credential is not asked for one again at once; a sign-in elsewhere is found by the 401', async () => {
    const reads = () => fx.counts.authorizationCode + fx.counts.refresh;
    expect(await call()).toMatchObject({ kind: 'needs_sign_in' }); // now known: no credential
    if (!handle.url) return; // a second instance needs a database server
    const elsewhere = await openPostgres(handle.url, { max: 2 });
    try {
      await signIn(oauthDeps(elsewhere.db, app.origin)); // forgets only that instance's memo
      const before = reads();
      // This instance still believes there is none: it sends no token, the 401 makes it read afresh.
      expect(await call()).toMatchObject({ kind: 'result' });
      expect(fx.calls.at(-1)).toMatchObject({ name: 'whoami' });
      expect(reads()).toBe(before); // the stored token was used, not a new one
    } finally {
      await elsewhere.close();
    }
  });

  it("credentials are per user: another user's call to the same server still needs their own sign-in", async () => {
    await signIn();
    const other = await makeUserWithSession(handle.db);
    const outcome = await gatewayFor().callTool(
      server,
      'whoami',
      {},
      {
        caller: { userId: other.userId },
        signal: new AbortController().signal,
        timeoutMs: 5_000,
      },
    );
    expect(outcome).toMatchObject({ kind: 'needs_sign_in', reason: 'first_use' });
    expect(await call()).toMatchObject({ kind: 'result' });
  });
});

describe('resource candidates', () => {
  it('are the URL and each of its path prefixes, down to the origin', () => {
    expect(resourceCandidates('https://mcp.example.com/a/b?x=1#f')).toEqual([
      'https://mcp.example.com/a/b?x=1',
      'https://mcp.example.com',
      'https://mcp.example.com/',
      'https://mcp.example.com/a',
      'https://mcp.example.com/a/',
      'https://mcp.example.com/a/b',
      'https://mcp.example.com/a/b/',
    ]);
  });
});
