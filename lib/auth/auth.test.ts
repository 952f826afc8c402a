import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { encode } from '@auth/core/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createAuthSession, endAuthSession } from '@/db/queries/auth-sessions';
import { AppError } from '@/lib/http/errors';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { SIGN_IN_LIMITS, verifyCredentials } from './credentials';
import { hashPassword, verifyPassword } from './password';
import { resolveAuthSecret } from './secret';
import { getSessionFromCookies } from './session';
import { signUp } from './signup';

describe('passwords', () => {
  it('verifies the right password and rejects a wrong one', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash.startsWith('scrypt$16384$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
    expect(await hashPassword('correct horse')).not.toBe(hash); // salted
  });
});

describe('auth secret', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sb-secret-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('uses AUTH_SECRET when set and refuses a short one', async () => {
    expect(await resolveAuthSecret({ AUTH_SECRET: 'x'.repeat(40) }, dir)).toBe('x'.repeat(40));
    await expect(resolveAuthSecret({ AUTH_SECRET: 'short' }, dir)).rejects.toThrow(/at least 32 characters/);
  });

  it('is a startup error with DATABASE_URL and no AUTH_SECRET', async () => {
    await expect(resolveAuthSecret({ DATABASE_URL: 'postgres://x' }, dir)).rejects.toThrow(/AUTH_SECRET is not set/);
  });

  it('creates one under the data folder on first start and keeps it', async () => {
    const first = await resolveAuthSecret({}, dir);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(await resolveAuthSecret({}, dir)).toBe(first);
    expect((await readFile(path.join(dir, 'auth-secret'), 'utf8')).trim()).toBe(first);
  });
});

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`sign-up, sign-in and sessions on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('signs up once per email, case-insensitively', async () => {
      const user = await signUp(h.db, { email: 'Grace@Example.test', password: 'long enough' }, 'client-a');
      expect(user.email).toBe('grace@example.test');
      expect(user.plan).toBe('pro');
      const dup = await signUp(h.db, { email: 'grace@example.TEST', password: 'other pass' }, 'client-a').catch((e) => e);
      expect(dup).toBeInstanceOf(AppError);
      expect(dup).toMatchObject({ status: 409, field: 'email' });
    });

    it('gives the same answer for an unknown email and a wrong password', async () => {
      await signUp(h.db, { email: 'linus@example.test', password: 'right password' }, 'client-b');
      expect(await verifyCredentials(h.db, { email: 'linus@example.test', password: 'right password' }, 'c1')).toMatchObject({ ok: true });
      const wrong = await verifyCredentials(h.db, { email: 'linus@example.test', password: 'wrong password' }, 'c1');
      const unknown = await verifyCredentials(h.db, { email: 'nobody@example.test', password: 'wrong password' }, 'c1');
      expect(wrong).toEqual({ ok: false, reason: 'invalid' });
      expect(unknown).toEqual(wrong);
      expect(await verifyCredentials(h.db, { email: 42, password: null }, 'c1')).toEqual(wrong);
    });

    it('rate-limits failed sign-ins per email, also for the right password afterwards', async () => {
      await signUp(h.db, { email: 'ada@example.test', password: 'right password' }, 'client-c');
      for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) {
        expect(await verifyCredentials(h.db, { email: 'ada@example.test', password: `nope ${i}` }, `ip-${i}`)).toMatchObject({
          reason: 'invalid',
        });
      }
      expect(await verifyCredentials(h.db, { email: 'ada@example.test', password: 'right password' }, 'fresh-ip')).toEqual({
        ok: false,
        reason: 'rate_limited',
      });
      // Unknown emails are limited the same way, so the limit does not reveal who has an account.
      for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++)
        await verifyCredentials(h.db, { email: 'ghost@example.test', password: 'x' }, `ip-g${i}`);
      expect(await verifyCredentials(h.db, { email: 'ghost@example.test', password: 'x' }, 'fresh-ip')).toEqual({
        ok: false,
        reason: 'rate_limited',
      });
    });

    it('counts concurrent failed attempts before checking any of them', async () => {
      await signUp(h.db, { email: 'burst@example.test', password: 'right password' }, 'client-e');
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          verifyCredentials(h.db, { email: 'burst@example.test', password: `guess ${i}` }, `burst-${i}`),
        ),
      );
      expect(results.filter((r) => !r.ok && r.reason === 'invalid').length).toBe(SIGN_IN_LIMITS.perEmail);
      expect(results.filter((r) => !r.ok && r.reason === 'rate_limited').length).toBe(25 - SIGN_IN_LIMITS.perEmail);
    });

    it('does not count successful sign-ins against the limit', async () => {
      await signUp(h.db, { email: 'often@example.test', password: 'right password' }, 'client-f');
      for (let i = 0; i < SIGN_IN_LIMITS.perEmail + 3; i++) {
        expect(await verifyCredentials(h.db, { email: 'often@example.test', password: 'right password' }, 'same-client')).toMatchObject({
          ok: true,
        });
      }
    });

    it('accepts a session cookie only while its session row is live', async () => {
      const user = await signUp(h.db, { email: 'margaret@example.test', password: 'right password' }, 'client-d');
      const secret = 's'.repeat(40);
      const salt = 'authjs.session-token';
      await createAuthSession(h.db, { id: 'sid-1', userId: user.id, expiresAt: new Date(Date.now() + 60_000) });
      const token = await encode({ token: { sid: 'sid-1', uid: user.id, sub: user.id }, secret, salt });
      const cookie = `other=1; ${salt}=${token}`;
      expect(await getSessionFromCookies(h.db, secret, cookie)).toMatchObject({
        sessionId: 'sid-1',
        user: { id: user.id, email: 'margaret@example.test' },
      });
      expect(await getSessionFromCookies(h.db, 'w'.repeat(40), cookie)).toBeNull(); // wrong secret
      expect(await getSessionFromCookies(h.db, secret, `${salt}=garbage`)).toBeNull();
      expect(await getSessionFromCookies(h.db, secret, null)).toBeNull();
      expect(await getSessionFromCookies(h.db, secret, `broken=%E0%A4%A; ${salt}=${token}`)).toMatchObject({ sessionId: 'sid-1' });
      await endAuthSession(h.db, 'sid-1');
      expect(await getSessionFromCookies(h.db, secret, cookie)).toBeNull(); // signed out: the copied cookie is dead
    });
  });
}
