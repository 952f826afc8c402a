import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser } from '@/db/queries/users';
import { accessTokens } from '@/db/schema';
import { buildAccountExport } from '@/lib/account/export';
import { authenticateBearer, hashAccessToken } from '@/lib/auth/access-tokens';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/** /api/account/tokens and /api/account/tokens/:id through the real handlers (session, origin, errors). */
describe('/api/account/tokens', () => {
  let h: DbHandle;
  let list: typeof import('./route');
  let one: typeof import('./[id]/route');
  beforeAll(async () => {
    // A small cap, so that reaching it takes three tokens.
    h = await openRouteRuntime('tokens', { SWITCHBOARD_LIMITS: JSON.stringify({ accessTokensPerUser: 3 }) });
    list = await import('./route');
    one = await import('./[id]/route');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `t-${Math.random().toString(36).slice(2)}@example.test` }))!;
    return { userId: user.id, cookie: (await sessionCookie(h.db, user.id)).cookie };
  }
  const none = { params: Promise.resolve({}) };
  const req = (method: string, cookie: string, body?: unknown, path = '/api/account/tokens') =>
    new Request(`http://localhost${path}`, {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const create = (cookie: string, body: unknown) => list.POST(req('POST', cookie, body), none);
  const listOf = async (cookie: string) => (await (await list.GET(req('GET', cookie), none)).json()).tokens as Record<string, unknown>[];
  const revoke = (cookie: string, id: string) =>
    one.DELETE(req('DELETE', cookie, undefined, `/api/account/tokens/${id}`), { params: Promise.resolve({ id }) });
  const bearer = (token: string) => new Request('http://localhost/mcp', { headers: { authorization: `Bearer ${token}` } });

  it('creates a token shown once, stores only its hash, and lists it without hash or token', async () => {
    const ada = await signedIn();
    const before = Date.now();
    const res = await create(ada.cookie, { name: '  CI  ', expiresIn: '7d' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const made = await res.json();
    expect(made.token).toMatch(/^sbp_[A-Za-z0-9_-]{43}$/);
    expect(made).toMatchObject({ name: 'CI', prefix: made.token.slice(0, 8), lastUsedAt: null });
    const expires = new Date(made.expiresAt).getTime();
    expect(expires - before).toBeGreaterThanOrEqual(7 * 86_400_000 - 5_000);
    expect(expires - before).toBeLessThanOrEqual(7 * 86_400_000 + 5_000);

    const [row] = await h.db.select().from(accessTokens).where(eq(accessTokens.id, made.id));
    expect(row!.tokenHash).toBe(hashAccessToken(made.token));
    expect(JSON.stringify(row)).not.toContain(made.token);

    const listed = await listOf(ada.cookie);
    expect(listed).toEqual([
      {
        id: made.id,
        name: 'CI',
        prefix: made.prefix,
        createdAt: made.createdAt,
        expiresAt: made.expiresAt,
        lastUsedAt: null,
        tools: [],
        askInClient: false,
        ownNames: false,
        content: false,
        agentTool: false,
      },
    ]);
    const listText = JSON.stringify(listed);
    expect(listText).not.toContain(made.token);
    expect(listText).not.toContain(row!.tokenHash);

    // The token works as a bearer, and its use shows in the list.
    const auth = await authenticateBearer(h.db, bearer(made.token));
    expect(auth).toMatchObject({ ok: true, user: { id: ada.userId }, tokenId: made.id });
    expect((await listOf(ada.cookie))[0]!.lastUsedAt).not.toBeNull();

    // The export names the token, never its hash or the token.
    const exported = JSON.stringify(await buildAccountExport(h.db, ada.userId));
    expect(exported).toContain(made.prefix);
    expect(exported).not.toContain(row!.tokenHash);
    expect(exported).not.toContain(made.token);
  });

  it('defaults to 30 days, and null is a token that never expires', async () => {
    const { cookie } = await signedIn();
    const month = await (await create(cookie, { name: 'default' })).json();
    expect(new Date(month.expiresAt).getTime() - new Date(month.createdAt).getTime()).toBeGreaterThan(29 * 86_400_000);
    const forever = await (await create(cookie, { name: 'forever', expiresIn: null })).json();
    expect(forever.expiresAt).toBeNull();
    expect((await listOf(cookie)).map((t) => t.name)).toEqual(['forever', 'default']);
  });

  it('says which field is wrong and what is allowed', async () => {
    const { cookie } = await signedIn();
    const badExpiry = await create(cookie, { name: 'x', expiresIn: '2d' });
    expect(badExpiry.status).toBe(400);
    expect((await badExpiry.json()).error).toEqual({
      code: 'bad_request:body',
      field: 'expiresIn',
      message: 'expiresIn: must be one of "7d", "30d", "90d", "1y", or null for a token that never expires',
    });
    const noName = await create(cookie, { name: '   ' });
    expect((await noName.json()).error).toMatchObject({ field: 'name', message: expect.stringMatching(/^name: is required/) });
    const longName = await create(cookie, { name: 'n'.repeat(101) });
    expect((await longName.json()).error).toMatchObject({ field: 'name', message: 'name: must be at most 100 characters' });
    const extra = await create(cookie, { name: 'x', scope: 'all' });
    expect(extra.status).toBe(400);
    expect(await listOf(cookie)).toEqual([]);
  });

  it('revokes a token at once; another person’s token is 404 and keeps working', async () => {
    const ada = await signedIn();
    const bob = await signedIn();
    const made = await (await create(ada.cookie, { name: 'laptop' })).json();

    const byBob = await revoke(bob.cookie, made.id);
    expect(byBob.status).toBe(404);
    expect((await byBob.json()).error.code).toBe('not_found:access_token');
    expect((await authenticateBearer(h.db, bearer(made.token))).ok).toBe(true);
    expect(await listOf(bob.cookie)).toEqual([]);

    const res = await revoke(ada.cookie, made.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: true });
    expect(await listOf(ada.cookie)).toEqual([]);
    expect(await authenticateBearer(h.db, bearer(made.token))).toMatchObject({ ok: false, reason: 'revoked' });
    // Twice: the token is gone from the list, so it is not found.
    expect((await revoke(ada.cookie, made.id)).status).toBe(404);
    expect((await revoke(ada.cookie, 'not-a-uuid')).status).toBe(404);
  });

  it('caps the tokens that work per person, with the limit in words; a revoked or expired one frees a place', async () => {
    const { userId, cookie } = await signedIn();
    const made = [];
    for (const name of ['a', 'b', 'c']) made.push(await (await create(cookie, { name })).json());
    const over = await create(cookie, { name: 'd' });
    expect(over.status).toBe(429);
    expect((await over.json()).error).toMatchObject({
      code: 'rate_limited:accessTokensPerUser',
      limit: 'accessTokensPerUser',
      message: 'Limit reached on the pro plan: at most 3 personal access tokens. Revoke a token you no longer use before creating another.',
    });
    await revoke(cookie, made[0].id);
    expect((await create(cookie, { name: 'd' })).status).toBe(201);
    // An expired token does not count either.
    await h.db
      .update(accessTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(accessTokens.id, made[1].id));
    expect((await create(cookie, { name: 'e' })).status).toBe(201);
    expect((await listOf(cookie)).map((t) => t.name).sort()).toEqual(['c', 'd', 'e']);
    const rows = await h.db.select().from(accessTokens).where(eq(accessTokens.userId, userId));
    expect(rows).toHaveLength(5);
  });

  it('refuses a write from another origin and a request without a session', async () => {
    const { cookie } = await signedIn();
    const foreign = new Request('http://localhost/api/account/tokens', {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect((await list.POST(foreign, none)).status).toBe(403);
    expect((await list.GET(new Request('http://localhost/api/account/tokens'), none)).status).toBe(401);
    expect(await listOf(cookie)).toEqual([]);
  });
});
