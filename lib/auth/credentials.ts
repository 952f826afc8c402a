import { z } from 'zod';

import type { Db } from '@/db/connection';
import { hitRateLimit, undoRateLimitHit } from '@/db/queries/rate-limits';
import { findUserByEmail, normalizeEmail, type UserRow } from '@/db/queries/users';

import { dummyPasswordHash, verifyPassword } from './password';

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const SIGN_IN_LIMITS = { perEmail: 10, perClient: 50 };

export const credentialsSchema = z.object({
  email: z.string().trim().min(3).max(254),
  password: z.string().min(1).max(1024),
});

export type SignInResult = { ok: true; user: UserRow } | { ok: false; reason: 'invalid' | 'rate_limited' };

/**
 * Checks an email + password. Unknown email and wrong password take the same path (one scrypt
 * each) and the same answer. Only failures count against the limits, per email and per client,
 * so a person who signs in often is never locked out by their own successes.
 */
export async function verifyCredentials(
  db: Db,
  input: { email?: unknown; password?: unknown },
  client: string,
  now = new Date(),
): Promise<SignInResult> {
  const parsed = credentialsSchema.safeParse(input);
  const email = parsed.success ? normalizeEmail(parsed.data.email) : '';
  const emailKey = `signin:email:${email}`;
  const clientKey = `signin:client:${client}`;
  // Count first, in one statement per key: concurrent attempts cannot all slip under the limit.
  const [byEmail, byClient] = await Promise.all([
    hitRateLimit(db, emailKey, SIGN_IN_WINDOW_MS, now),
    hitRateLimit(db, clientKey, SIGN_IN_WINDOW_MS, now),
  ]);
  if (byEmail > SIGN_IN_LIMITS.perEmail || byClient > SIGN_IN_LIMITS.perClient) {
    return { ok: false, reason: 'rate_limited' };
  }

  const user = parsed.success ? await findUserByEmail(db, email) : null;
  const password = parsed.success ? parsed.data.password : '';
  const valid = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (user && user.passwordHash && valid) {
    // Only failures count: a success takes its own hit back.
    await Promise.all([undoRateLimitHit(db, emailKey), undoRateLimitHit(db, clientKey)]);
    return { ok: true, user };
  }
  return { ok: false, reason: 'invalid' };
}
