import { z } from 'zod';

import type { Db } from '@/db/connection';
import { claimPasswordCheck, clearPasswordCheckThrottle } from '@/db/queries/password-check-throttles';
import { hitRateLimit, undoRateLimitHit } from '@/db/queries/rate-limits';
import { findUserByEmail, normalizeEmail, replacePasswordHash, type UserRow } from '@/db/queries/users';

import type { KnownDevice } from './known-device';
import { authLimits, GLOBAL_WINDOW_MS, PASSWORD_CHECK_THROTTLE, SIGN_IN_CLIENT_WINDOW_MS, type AuthLimits } from './limits';
import { dummyPasswordHash, hashPassword, isWeakerThanCurrent, verifyPassword } from './password';

export const credentialsSchema = z.object({
  email: z.string().trim().min(3).max(254),
  password: z.string().min(1).max(1024),
});

export type SignInResult = { ok: true; user: UserRow } | { ok: false; reason: 'invalid' | 'rate_limited' };

export interface SignInContext {
  /** The client's address when TRUSTED_PROXIES makes it trustworthy, else null (no per-client limit). */
  client: string | null;
  /** Accounts this browser has signed in to before (a verified known-device cookie). */
  knownDevices: KnownDevice[];
  limits?: AuthLimits;
  now?: Date;
}

/**
 * Checks an email + password. Unknown email and wrong password take the same path (the same
 * throttles, one scrypt each) and give the same answer.
 *
 * Limits, all counted in Postgres before the password is checked, so concurrent attempts on
 * several instances cannot slip past them (a malformed request is refused before any of them):
 * - per email: a growing delay between checks (limits.ts), not a lock-out — once it has passed,
 *   the right password gets in;
 * - across all clients: failed sign-ins per minute, since a per-client limit means nothing when
 *   the client's address cannot be trusted (no TRUSTED_PROXIES);
 * - per client, when its address can be trusted.
 * A browser known to the account (known-device.ts) skips the email-wide delay and the global
 * limit, and is throttled on its own token instead: an attacker flooding an email, or every
 * email, cannot keep owners out of browsers they have signed in from before.
 */
export async function verifyCredentials(db: Db, input: { email?: unknown; password?: unknown }, ctx: SignInContext): Promise<SignInResult> {
  const now = ctx.now ?? new Date();
  const limits = ctx.limits ?? authLimits();
  const parsed = credentialsSchema.safeParse(input);
  // A request no account could match (no email, an empty or oversized password) guesses nothing:
  // refused before any counter, so a flood of them cannot fill the global limit for everyone.
  if (!parsed.success) return { ok: false, reason: 'invalid' };
  const email = normalizeEmail(parsed.data.email);
  const user = await findUserByEmail(db, email);
  const device = user ? ctx.knownDevices.find((d) => d.userId === user.id) : undefined;

  // Fixed-window counters are hit first and given back when the attempt turns out not to be a failure.
  const counters = device ? [] : [{ key: 'signin:global', windowMs: GLOBAL_WINDOW_MS, limit: limits.signInFailuresPerMinute }];
  if (!device && ctx.client) {
    counters.push({ key: `signin:client:${ctx.client}`, windowMs: SIGN_IN_CLIENT_WINDOW_MS, limit: limits.signInFailuresPerClient });
  }
  const counts = await Promise.all(counters.map((c) => hitRateLimit(db, c.key, c.windowMs, now)));
  const giveBack = () => Promise.all(counters.map((c) => undoRateLimitHit(db, c.key)));
  if (counters.some((c, i) => counts[i]! > c.limit)) return { ok: false, reason: 'rate_limited' };

  const throttleKey = device ? `device:${device.nonce}` : `email:${email}`;
  const claim = await claimPasswordCheck(db, throttleKey, PASSWORD_CHECK_THROTTLE, now);
  if (!claim.allowed) {
    await giveBack();
    return { ok: false, reason: 'rate_limited' };
  }

  const password = parsed.data.password;
  const valid = await checkPassword(password, user?.passwordHash ?? null);
  if (!user || !user.passwordHash || !valid) return { ok: false, reason: 'invalid' };

  await Promise.all([giveBack(), clearPasswordCheckThrottle(db, throttleKey)]);
  if (isWeakerThanCurrent(user.passwordHash)) {
    // Only if nobody changed the password meanwhile.
    await replacePasswordHash(db, user.id, user.passwordHash, await hashPassword(password));
  }
  return { ok: true, user };
}

/**
 * One scrypt against the stored hash, or against a dummy one when there is none, so an unknown
 * email costs what a wrong password does. A hash with weaker parameters than today's is checked
 * alongside a dummy check at today's cost: it would otherwise answer faster and tell that the
 * account exists (it is rehashed at the next successful sign-in).
 */
export async function checkPassword(password: string, stored: string | null): Promise<boolean> {
  const dummy = await dummyPasswordHash();
  if (!stored) return verifyPassword(password, dummy).then(() => false);
  if (!isWeakerThanCurrent(stored)) return verifyPassword(password, stored);
  const [valid] = await Promise.all([verifyPassword(password, stored), verifyPassword(password, dummy)]);
  return valid;
}
