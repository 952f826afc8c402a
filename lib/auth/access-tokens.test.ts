import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser, deleteUser } from '@/db/queries/users';
import { accessTokens } from '@/db/schema';
import { createAccessToken } from '@/lib/account/access-tokens';
import { openTestDb } from '@/test/db';

import { ACCESS_TOKEN_LAST_USED_PRECISION_MS, authenticateBearer, hashAccessToken, newAccessToken } from './access-tokens';

describe('personal access tokens: authenticateBearer', () => {
  let h: DbHandle;
  beforeAll(async () => {
    h = await openTestDb('pglite');
  });
  afterAll(async () => {
    await h?.close();
  });

  async function userWithToken(expiresIn: '7d' | null = '7d', now = new Date()) {
    const user = (await createUser(h.db, { email: `b-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const made = await createAccessToken(h.db, { id: user.id, plan: 'pro' }, { name: 'test', expiresIn }, now);
    return { user, made };
  }
  const withHeader = (value: string | null) =>
    new Request('http://localhost/mcp', { headers: value === null ? {} : { authorization: value } });
  const lastUsed = async (id: string) => (await h.db.select().from(accessTokens).where(eq(accessTokens.id, id)))[0]!.lastUsedAt;

  it('makes distinct random tokens with a recognisable prefix, and stores their SHA-256', () => {
    const a = newAccessToken();
    const b = newAccessToken();
    expect(a.token).toMatch(/^sbp_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.prefix).toBe(a.token.slice(0, 8));
    expect(a.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.tokenHash).toBe(hashAccessToken(a.token));
    expect(a.tokenHash).not.toBe(b.tokenHash);
  });

  it('answers the user and the token for a valid one, whatever the case of "Bearer"', async () => {
    const { user, made } = await userWithToken();
    const result = await authenticateBearer(h.db, withHeader(`bearer ${made.token}`));
    expect(result).toEqual({
      ok: true,
      user: { id: user.id, email: user.email, name: user.name, plan: user.plan, toolsRev: user.toolsRev },
      tokenId: made.id,
      token: { id: made.id, kind: 'access_token', name: made.name, profile: { v: 1, tools: [] }, tainted: null },
    });
  });

  it('says why not, as data: missing, malformed, unknown, expired, revoked', async () => {
    const reasonOf = async (header: string | null, now?: Date) => {
      const r = await authenticateBearer(h.db, withHeader(header), now);
      if (r.ok) throw new Error('expected a failure');
      expect(r.message.length).toBeGreaterThan(20);
      return r.reason;
    };
    const { made } = await userWithToken('7d');
    expect(await reasonOf(null)).toBe('missing');
    expect(await reasonOf(`Basic ${made.token}`)).toBe('malformed');
    expect(await reasonOf('Bearer')).toBe('malformed');
    expect(await reasonOf(`Bearer ${made.token.slice(0, -1)}`)).toBe('malformed');
    expect(await reasonOf(`Bearer ghp_${made.token.slice(4)}`)).toBe('malformed');
    expect(await reasonOf(`Bearer ${newAccessToken().token}`)).toBe('unknown');
    expect(await reasonOf(`Bearer ${made.token}`, new Date(Date.now() + 8 * 86_400_000))).toBe('expired');
    await h.db.update(accessTokens).set({ revokedAt: new Date() }).where(eq(accessTokens.id, made.id));
    expect(await reasonOf(`Bearer ${made.token}`)).toBe('revoked');
  });

  it('records a use at most once a minute', async () => {
    const t0 = new Date('2026-06-01T12:00:00Z');
    const { made } = await userWithToken(null, t0);
    expect(await lastUsed(made.id)).toBeNull();
    await authenticateBearer(h.db, withHeader(`Bearer ${made.token}`), t0);
    expect((await lastUsed(made.id))?.toISOString()).toBe(t0.toISOString());
    const soon = new Date(t0.getTime() + ACCESS_TOKEN_LAST_USED_PRECISION_MS - 1000);
    expect((await authenticateBearer(h.db, withHeader(`Bearer ${made.token}`), soon)).ok).toBe(true);
    expect((await lastUsed(made.id))?.toISOString()).toBe(t0.toISOString());
    const later = new Date(t0.getTime() + ACCESS_TOKEN_LAST_USED_PRECISION_MS);
    await authenticateBearer(h.db, withHeader(`Bearer ${made.token}`), later);
    expect((await lastUsed(made.id))?.toISOString()).toBe(later.toISOString());
  });

  it('goes with the account: deleting the user deletes its tokens', async () => {
    const { user, made } = await userWithToken();
    expect(await deleteUser(h.db, user.id)).toBe(true);
    expect(await h.db.select().from(accessTokens).where(eq(accessTokens.id, made.id))).toEqual([]);
    expect(await authenticateBearer(h.db, withHeader(`Bearer ${made.token}`))).toMatchObject({ ok: false, reason: 'unknown' });
  });
});
