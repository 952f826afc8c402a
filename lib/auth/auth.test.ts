import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { encode } from '@auth/core/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createAuthSession, endAuthSession, findLiveAuthSession } from '@/db/queries/auth-sessions';
import { findUserById, setPasswordHash } from '@/db/queries/users';
import { readConfig } from '@/lib/config';
import { AppError } from '@/lib/http/errors';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { verifyCredentials, type SignInContext } from './credentials';
import { PASSWORD_CHECK_THROTTLE } from './limits';
import { hashingSlots, hashPassword, isWeakerThanCurrent, MAX_CONCURRENT_HASHES, STANDARD_PARAMS, verifyPassword } from './password';
import { resolveAuthSecret } from './secret';
import { getSessionFromCookies } from './session';
import { signUp } from './signup';

const anyClient: SignInContext = { client: null, knownDevices: [] };
const signUpCtx = { client: null };

describe('passwords', () => {
  it('verifies the right password and rejects a wrong one', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash.startsWith('scrypt$1024$8$1$')).toBe(true); // PASSWORD_HASH_COST=test in vitest.config.ts
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$1073741824$8$1$c2FsdA==$aGFzaA==')).toBe(false); // absurd cost: refused, not run
    expect(await hashPassword('correct horse')).not.toBe(hash); // salted
  });

  it('scrypt: hashes with N 2^17, r 8, p 1 by default, within its memory limit', async () => {
    expect(STANDARD_PARAMS).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    const hash = await hashPassword('correct horse', STANDARD_PARAMS);
    expect(hash.startsWith('scrypt$131072$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(isWeakerThanCurrent(hash, STANDARD_PARAMS)).toBe(false);
    expect(isWeakerThanCurrent(await hashPassword('x', { N: 2 ** 14, r: 8, p: 1 }), STANDARD_PARAMS)).toBe(true);
  });

  it('scrypt: at most two hashes run at once in a process', async () => {
    hashingSlots.peak = 0;
    const hashes = await Promise.all(Array.from({ length: 6 }, (_, i) => hashPassword(`pw ${i}`)));
    expect(new Set(hashes).size).toBe(6);
    expect(MAX_CONCURRENT_HASHES).toBe(2);
    expect(hashingSlots.peak).toBe(2);
  });
});

describe('auth settings', () => {
  it('are checked at start-up with the rest of the configuration, each error naming the setting and what it accepts', () => {
    expect(() => readConfig({})).not.toThrow();
    expect(() => readConfig({ TRUSTED_PROXIES: '1', APP_URL: 'https://chat.example.com', SIGN_UPS_PER_MINUTE: '5' })).not.toThrow();
    expect(() => readConfig({ TRUSTED_PROXIES: 'yes' })).toThrow(/TRUSTED_PROXIES must be the number of proxies/);
    expect(() => readConfig({ PASSWORD_HASH_COST: 'low' })).toThrow(/PASSWORD_HASH_COST must be "standard" or "test"/);
    expect(() => readConfig({ SIGN_IN_FAILURES_PER_MINUTE: '0' })).toThrow(/SIGN_IN_FAILURES_PER_MINUTE must be a whole number/);
    expect(() => readConfig({ APP_URL: 'chat.example.com' })).toThrow(/APP_URL must be a full URL such as https:\/\/chat.example.com/);
  });
});

describe('auth secret', () => {
  let dir: string;
  beforeAll(async () => {
    dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'sb-secret-')), 'data');
  });
  afterAll(async () => rm(path.dirname(dir), { recursive: true, force: true }));

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
    // file permissions: the data folder it creates is private, and the secret is readable by its owner only.
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, 'auth-secret'))).mode & 0o777).toBe(0o600);
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
      const user = await signUp(h.db, { email: 'Grace@Example.test', password: 'long enough' }, signUpCtx);
      expect(user.email).toBe('grace@example.test');
      expect(user.plan).toBe('pro');
      const dup = await signUp(h.db, { email: 'grace@example.TEST', password: 'other pass' }, signUpCtx).catch((e) => e);
      expect(dup).toBeInstanceOf(AppError);
      expect(dup).toMatchObject({ status: 409, field: 'email' });
    });

    it('gives the same answer for an unknown email and a wrong password', async () => {
      await signUp(h.db, { email: 'linus@example.test', password: 'right password' }, signUpCtx);
      expect(await verifyCredentials(h.db, { email: 'linus@example.test', password: 'right password' }, anyClient)).toMatchObject({
        ok: true,
      });
      const wrong = await verifyCredentials(h.db, { email: 'linus@example.test', password: 'wrong password' }, anyClient);
      const unknown = await verifyCredentials(h.db, { email: 'nobody@example.test', password: 'wrong password' }, anyClient);
      expect(wrong).toEqual({ ok: false, reason: 'invalid' });
      expect(unknown).toEqual(wrong);
      expect(await verifyCredentials(h.db, { email: 42, password: null }, anyClient)).toEqual(wrong);
    });

    it("sign-in timing: an unknown email, a wrong password and a weaker stored hash each cost a check at today's cost", async () => {
      const user = await signUp(h.db, { email: 'timing@example.test', password: 'right password' }, signUpCtx);
      const scrypts = async (email: string) => {
        const before = hashingSlots.started;
        await verifyCredentials(h.db, { email, password: 'wrong password' }, anyClient);
        return hashingSlots.started - before;
      };
      await scrypts('warm-up@example.test'); // the dummy hash is made once per process
      expect(await scrypts('no-such-user@example.test')).toBe(1);
      expect(await scrypts('timing@example.test')).toBe(1);
      // A legacy hash is cheaper: it is checked alongside a dummy check at today's cost.
      await setPasswordHash(h.db, user.id, await hashPassword('right password', { N: 2 ** 8, r: 8, p: 1 }));
      expect(await scrypts('timing@example.test')).toBe(2);
    });

    it('counts concurrent failed attempts before checking any of them', async () => {
      await signUp(h.db, { email: 'burst@example.test', password: 'right password' }, signUpCtx);
      const results = await Promise.all(
        Array.from({ length: 25 }, () => verifyCredentials(h.db, { email: 'burst@example.test', password: 'guess' }, anyClient)),
      );
      const free = PASSWORD_CHECK_THROTTLE.freeFailures;
      expect(results.filter((r) => !r.ok && r.reason === 'invalid').length).toBe(free);
      expect(results.filter((r) => !r.ok && r.reason === 'rate_limited').length).toBe(25 - free);
    });

    it('does not count successful sign-ins against the limit', async () => {
      await signUp(h.db, { email: 'often@example.test', password: 'right password' }, signUpCtx);
      for (let i = 0; i < PASSWORD_CHECK_THROTTLE.freeFailures + 3; i++) {
        expect(await verifyCredentials(h.db, { email: 'often@example.test', password: 'right password' }, anyClient)).toMatchObject({
          ok: true,
        });
      }
    });

    it('scrypt: a stored hash with weaker parameters is rehashed on the next successful sign-in', async () => {
      const user = await signUp(h.db, { email: 'legacy@example.test', password: 'right password' }, signUpCtx);
      const weak = await hashPassword('right password', { N: 2 ** 8, r: 8, p: 1 });
      await setPasswordHash(h.db, user.id, weak);
      expect(await verifyCredentials(h.db, { email: 'legacy@example.test', password: 'wrong password' }, anyClient)).toMatchObject({
        ok: false,
      });
      expect((await findUserById(h.db, user.id))?.passwordHash).toBe(weak); // a failure changes nothing
      expect(await verifyCredentials(h.db, { email: 'legacy@example.test', password: 'right password' }, anyClient)).toMatchObject({
        ok: true,
      });
      const rehashed = (await findUserById(h.db, user.id))!.passwordHash!;
      expect(rehashed.startsWith('scrypt$1024$8$1$')).toBe(true);
      expect(await verifyPassword('right password', rehashed)).toBe(true);
    });

    it('accepts a session cookie only while its session row is live', async () => {
      const user = await signUp(h.db, { email: 'margaret@example.test', password: 'right password' }, signUpCtx);
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

    it('cookies: on https only the __Secure- session cookie is accepted', async () => {
      const user = await signUp(h.db, { email: 'secure@example.test', password: 'right password' }, signUpCtx);
      const secret = 's'.repeat(40);
      await createAuthSession(h.db, { id: 'sid-2', userId: user.id, expiresAt: new Date(Date.now() + 60_000) });
      const plainName = 'authjs.session-token';
      const secureName = '__Secure-authjs.session-token';
      const plain = `${plainName}=${await encode({ token: { sid: 'sid-2', uid: user.id }, secret, salt: plainName })}`;
      const secure = `${secureName}=${await encode({ token: { sid: 'sid-2', uid: user.id }, secret, salt: secureName })}`;
      // A plain cookie can be planted over http or by a sibling subdomain: on https it is not read.
      expect(await getSessionFromCookies(h.db, secret, plain, { secure: true })).toBeNull();
      expect(await getSessionFromCookies(h.db, secret, secure, { secure: true })).toMatchObject({ sessionId: 'sid-2' });
      expect(await getSessionFromCookies(h.db, secret, plain, { secure: false })).toMatchObject({ sessionId: 'sid-2' });
    });

    it('records when a session was last seen, at most every few minutes', async () => {
      const user = await signUp(h.db, { email: 'seen@example.test', password: 'right password' }, signUpCtx);
      const secret = 's'.repeat(40);
      const salt = 'authjs.session-token';
      await createAuthSession(h.db, { id: 'sid-3', userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) });
      const cookie = `${salt}=${await encode({ token: { sid: 'sid-3', uid: user.id }, secret, salt })}`;
      const t0 = new Date();
      await getSessionFromCookies(h.db, secret, cookie, { now: t0 });
      expect((await findLiveAuthSession(h.db, 'sid-3'))?.lastSeenAt?.getTime()).toBe(t0.getTime());
      await getSessionFromCookies(h.db, secret, cookie, { now: new Date(t0.getTime() + 60_000) });
      expect((await findLiveAuthSession(h.db, 'sid-3'))?.lastSeenAt?.getTime()).toBe(t0.getTime());
      const later = new Date(t0.getTime() + 10 * 60_000);
      await getSessionFromCookies(h.db, secret, cookie, { now: later });
      expect((await findLiveAuthSession(h.db, 'sid-3'))?.lastSeenAt?.getTime()).toBe(later.getTime());
    });
  });
}
