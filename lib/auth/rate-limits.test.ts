import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { AppError } from '@/lib/http/errors';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { verifyCredentials, type SignInContext, type SignInResult } from './credentials';
import { knownDeviceSetCookie, readKnownDevices, type KnownDevice } from './known-device';
import { DEFAULT_AUTH_LIMITS, PASSWORD_CHECK_THROTTLE } from './limits';
import { signUp } from './signup';

const SECRET = 'k'.repeat(40);
const RIGHT = 'right password';
const free = PASSWORD_CHECK_THROTTLE.freeFailures;

/** The known-device entries a browser would send after signing in to `userId`. */
function knownDeviceOf(userId: string, now: number): KnownDevice[] {
  const setCookie = knownDeviceSetCookie([], userId, SECRET, { secure: false, now });
  return readKnownDevices(setCookie.split(';')[0]!, SECRET, { secure: false, now });
}

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const count = (results: SignInResult[], reason: 'invalid' | 'rate_limited') => results.filter((r) => !r.ok && r.reason === reason).length;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`sign-in and sign-up limits on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    const attempt = (email: string, password: string, ctx: Partial<SignInContext> & { now: Date }) =>
      verifyCredentials(h.db, { email, password }, { client: null, knownDevices: [], ...ctx });
    const newAccount = async (email: string) => signUp(h.db, { email, password: RIGHT }, { client: null });

    it('rate limits: eleven wrong passwords do not lock the owner out; after a short delay the right password gets in', async () => {
      await newAccount('owner@example.test');
      const t0 = new Date('2030-01-01T10:00:00Z');
      const results: SignInResult[] = [];
      for (let i = 0; i < 11; i++) results.push(await attempt('owner@example.test', `guess ${i}`, { now: t0 }));
      expect(count(results, 'invalid')).toBe(free);
      expect(count(results, 'rate_limited')).toBe(11 - free);
      // Held back for now, the right password included: the answer does not tell a right one from a wrong one.
      expect(await attempt('owner@example.test', RIGHT, { now: at(t0, 500) })).toEqual({ ok: false, reason: 'rate_limited' });
      // The delay after five failures is a second, not a 15-minute lock-out.
      expect(await attempt('owner@example.test', RIGHT, { now: at(t0, PASSWORD_CHECK_THROTTLE.baseDelayMs) })).toMatchObject({ ok: true });
      // And the success starts the email over.
      expect(await attempt('owner@example.test', 'wrong again', { now: at(t0, 2_000) })).toEqual({ ok: false, reason: 'invalid' });
    });

    it('rate limits: the guess rate per email stays bounded — five free, then doubling delays up to 15 minutes', async () => {
      await newAccount('target@example.test');
      const t0 = new Date('2030-02-01T00:00:00Z');
      const checkedAt: number[] = [];
      const stepMs = 2 * 60_000;
      for (let t = 0; t < 8 * 3_600_000; t += stepMs) {
        const r = await attempt('target@example.test', 'guess', { now: at(t0, t) });
        if (!r.ok && r.reason === 'invalid') checkedAt.push(t);
      }
      // Every two minutes for eight hours is 240 tries; the throttle checks a few dozen.
      expect(checkedAt.length).toBeLessThan(5 + 6 + 8 * 4 + 1);
      const lastFourHours = checkedAt.filter((t) => t >= 4 * 3_600_000);
      expect(lastFourHours.length).toBeLessThanOrEqual(4 * (3_600_000 / PASSWORD_CHECK_THROTTLE.maxDelayMs) + 1);
      for (let i = 1; i < lastFourHours.length; i++) {
        expect(lastFourHours[i]! - lastFourHours[i - 1]!).toBeGreaterThanOrEqual(PASSWORD_CHECK_THROTTLE.maxDelayMs);
      }
      // At the cap, the owner still gets in once the wait is over.
      const last = checkedAt[checkedAt.length - 1]!;
      expect(await attempt('target@example.test', RIGHT, { now: at(t0, last + PASSWORD_CHECK_THROTTLE.maxDelayMs) })).toMatchObject({
        ok: true,
      });
    });

    it('rate limits: a browser known to the account signs in while its email is being flooded', async () => {
      const owner = await newAccount('flooded@example.test');
      const t0 = new Date('2030-03-01T00:00:00Z');
      const device = knownDeviceOf(owner.id, t0.getTime());
      for (let i = 0; i < 30; i++) await attempt('flooded@example.test', `guess ${i}`, { now: t0 });
      expect(await attempt('flooded@example.test', RIGHT, { now: t0 })).toEqual({ ok: false, reason: 'rate_limited' });
      expect(await attempt('flooded@example.test', RIGHT, { now: t0, knownDevices: device })).toMatchObject({ ok: true });
      // The attacker's throttle on the email is untouched by the owner's sign-in.
      expect(await attempt('flooded@example.test', RIGHT, { now: at(t0, 100) })).toEqual({ ok: false, reason: 'rate_limited' });
    });

    it('rate limits: a known-device token is throttled on its own, and a forged or foreign one counts for nothing', async () => {
      const owner = await newAccount('device@example.test');
      const other = await newAccount('other@example.test');
      const t0 = new Date('2030-04-01T00:00:00Z');
      const device = knownDeviceOf(owner.id, t0.getTime());
      const results: SignInResult[] = [];
      for (let i = 0; i < free + 3; i++)
        results.push(await attempt('device@example.test', `guess ${i}`, { now: t0, knownDevices: device }));
      expect(count(results, 'invalid')).toBe(free);
      expect(count(results, 'rate_limited')).toBe(3);

      const forged = `switchboard.known-device=${owner.id}.nonce.${Math.floor(t0.getTime() / 1000)}.AAAA`;
      expect(readKnownDevices(forged, SECRET, { secure: false, now: t0.getTime() })).toEqual([]);
      const otherSecret = knownDeviceSetCookie([], owner.id, 'z'.repeat(40), { secure: false, now: t0.getTime() }).split(';')[0]!;
      expect(readKnownDevices(otherSecret, SECRET, { secure: false, now: t0.getTime() })).toEqual([]);
      const plainOnHttps = knownDeviceSetCookie([], owner.id, SECRET, { secure: false, now: t0.getTime() }).split(';')[0]!;
      expect(readKnownDevices(plainOnHttps, SECRET, { secure: true, now: t0.getTime() })).toEqual([]);
      const expired = t0.getTime() + 181 * 24 * 3_600_000;
      expect(readKnownDevices(plainOnHttps, SECRET, { secure: false, now: expired })).toEqual([]);

      // Another account's device token is no help with this email: the email-wide throttle applies.
      const foreign = knownDeviceOf(other.id, t0.getTime());
      for (let i = 0; i < free; i++) await attempt('device@example.test', `guess ${i}`, { now: t0, knownDevices: foreign });
      expect(await attempt('device@example.test', RIGHT, { now: t0, knownDevices: foreign })).toEqual({
        ok: false,
        reason: 'rate_limited',
      });
    });

    it('rate limits: failed sign-ins across all clients are capped per minute, except from known browsers', async () => {
      const owner = await newAccount('global-owner@example.test');
      const t0 = new Date('2030-05-01T00:00:00Z');
      const limits = { ...DEFAULT_AUTH_LIMITS, signInFailuresPerMinute: 3 };
      for (let i = 0; i < 3; i++) {
        expect(await attempt(`spray-${i}@example.test`, 'guess', { now: t0, limits })).toEqual({ ok: false, reason: 'invalid' });
      }
      expect(await attempt('spray-3@example.test', 'guess', { now: t0, limits })).toEqual({ ok: false, reason: 'rate_limited' });
      // Successes are not failures: they give their count back and do not use up the budget.
      const device = knownDeviceOf(owner.id, t0.getTime());
      expect(await attempt('global-owner@example.test', RIGHT, { now: t0, limits, knownDevices: device })).toMatchObject({ ok: true });
      expect(await attempt('global-owner@example.test', RIGHT, { now: t0, limits })).toEqual({ ok: false, reason: 'rate_limited' });
      expect(await attempt('global-owner@example.test', RIGHT, { now: at(t0, 60_001), limits })).toMatchObject({ ok: true });
    });

    it('rate limits: a malformed request is refused without counting against the global limit', async () => {
      const t0 = new Date('2030-05-02T00:00:00Z');
      const limits = { ...DEFAULT_AUTH_LIMITS, signInFailuresPerMinute: 3 };
      const malformed = [{}, { email: 'x' }, { email: 'a@b', password: '' }, { email: 'someone@example.test', password: 'p'.repeat(1025) }];
      for (const input of malformed) {
        for (let i = 0; i < 3; i++) {
          expect(await verifyCredentials(h.db, input, { client: '203.0.113.30', knownDevices: [], now: t0, limits })).toEqual({
            ok: false,
            reason: 'invalid',
          });
        }
      }
      for (let i = 0; i < 3; i++) {
        expect(await attempt(`malformed-spray-${i}@example.test`, 'guess', { now: t0, limits })).toEqual({ ok: false, reason: 'invalid' });
      }
      expect(await attempt('malformed-spray-3@example.test', 'guess', { now: t0, limits })).toEqual({ ok: false, reason: 'rate_limited' });
    });

    it('rate limits: with TRUSTED_PROXIES, failures are also limited per client address', async () => {
      const t0 = new Date('2030-06-01T00:00:00Z');
      const limits = { ...DEFAULT_AUTH_LIMITS, signInFailuresPerClient: 2 };
      for (let i = 0; i < 2; i++) {
        expect(await attempt(`c-${i}@example.test`, 'guess', { now: t0, limits, client: '203.0.113.7' })).toMatchObject({
          reason: 'invalid',
        });
      }
      expect(await attempt('c-2@example.test', 'guess', { now: t0, limits, client: '203.0.113.7' })).toMatchObject({
        reason: 'rate_limited',
      });
      expect(await attempt('c-3@example.test', 'guess', { now: t0, limits, client: '203.0.113.8' })).toMatchObject({ reason: 'invalid' });
    });

    it('rate limits: sign-ups across all clients are capped per minute, whatever address they claim', async () => {
      const now = new Date('2030-07-01T00:00:00Z');
      const limits = { ...DEFAULT_AUTH_LIMITS, signUpsPerMinute: 3 };
      for (let i = 0; i < 3; i++) {
        await signUp(h.db, { email: `wave-${i}@example.test`, password: RIGHT }, { client: `198.51.100.${i}`, limits, now });
      }
      const fourth = await signUp(h.db, { email: 'wave-3@example.test', password: RIGHT }, { client: '198.51.100.99', limits, now }).catch(
        (e) => e,
      );
      expect(fourth).toBeInstanceOf(AppError);
      expect(fourth).toMatchObject({ status: 429, code: 'rate_limited:signup' });
      expect(fourth.message).toMatch(/Try again in a minute/);
      await signUp(h.db, { email: 'wave-3@example.test', password: RIGHT }, { client: null, limits, now: at(now, 60_001) });
    });

    it('sign-up: a taken email answers 409 only within the global and per-email limits', async () => {
      const now = new Date('2030-08-01T00:00:00Z');
      await signUp(h.db, { email: 'taken@example.test', password: RIGHT }, { client: null, now });
      const probe = (at: Date, limits = DEFAULT_AUTH_LIMITS) =>
        signUp(h.db, { email: 'taken@example.test', password: RIGHT }, { client: null, limits, now: at }).catch((e: AppError) => e.status);
      expect(await probe(now)).toBe(409);
      for (let i = 2; i < DEFAULT_AUTH_LIMITS.signUpsPerEmail; i++) expect(await probe(now)).toBe(409);
      expect(await probe(now)).toBe(429); // per email
      // Past the per-email window, the global limit still stands in front of the 409.
      const later = at(now, 2 * 3_600_000);
      const limits = { ...DEFAULT_AUTH_LIMITS, signUpsPerMinute: 2 };
      await signUp(h.db, { email: 'filler@example.test', password: RIGHT }, { client: null, limits, now: later });
      expect(await probe(later, limits)).toBe(409);
      expect(await probe(later, limits)).toBe(429);
    });
  });
}
