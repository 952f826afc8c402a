import { z } from 'zod';

import type { Db } from '@/db/connection';
import { endAuthSessionsOfUser } from '@/db/queries/auth-sessions';
import { consumeResetToken, isResetTokenUsable, replaceResetToken } from '@/db/queries/password-reset-tokens';
import { findUserByEmail, setPasswordHash } from '@/db/queries/users';
import { getAuditKeyring } from '@/lib/audit/key';
import { hashPassword } from '@/lib/auth/password';
import { newPasswordSchema } from '@/lib/auth/password-rules';
import { passwordOff, passwordSignInEnabled } from '@/lib/auth/providers';
import { configuredAppUrl } from '@/lib/auth/secure-cookies';
import { logGrantsEndedAtSignOut } from '@/lib/consent/grant-audit';
import { AppError } from '@/lib/http/errors';
import { hashRandomToken, newRandomToken } from '@/lib/random-token';

// Long enough for an operator to pass the link on, short enough that a forgotten one goes stale.
export const RESET_TOKEN_TTL_MS = 60 * 60_000;

export const resetPasswordSchema = z
  .object({
    token: z.string({ error: 'must be a string' }).min(1, 'is required').max(200, 'is not a reset token'),
    password: newPasswordSchema,
  })
  .strict();

/**
 * The app sends no mail, so a forgotten password is reset through the operator: this makes a
 * one-time link (`npm run reset-password -- <email>`). The token is 256 random bits; only its
 * SHA-256 is stored, it expires after an hour, and a newer link replaces an older one.
 */
export async function createResetLink(db: Db, email: string, now = new Date()): Promise<{ url: string; expiresAt: Date } | null> {
  const user = await findUserByEmail(db, email);
  if (!user) return null;
  const token = newRandomToken();
  const expiresAt = new Date(now.getTime() + RESET_TOKEN_TTL_MS);
  await replaceResetToken(db, { userId: user.id, tokenHash: hashRandomToken(token), expiresAt });
  const base = configuredAppUrl()?.origin ?? 'http://localhost:3000';
  return { url: `${base}/reset-password?token=${token}`, expiresAt };
}

export function isResetLinkUsable(db: Db, token: string): Promise<boolean> {
  return isResetTokenUsable(db, hashRandomToken(token));
}

/** Uses the link once: sets the new password and ends every session of the account. Returns the user id. */
export async function resetPassword(db: Db, input: z.infer<typeof resetPasswordSchema>, now = new Date()): Promise<string> {
  if (!passwordSignInEnabled()) throw passwordOff('Setting a password');
  const tokenHash = hashRandomToken(input.token);
  // The cheap read first: a dead link costs no scrypt. The consume below is what decides.
  if (!(await isResetTokenUsable(db, tokenHash, now))) throw deadLink();
  const passwordHash = await hashPassword(input.password);
  const userId = await consumeResetToken(db, tokenHash, now);
  if (!userId) throw deadLink();
  await setPasswordHash(db, userId, passwordHash);
  await endAuthSessionsOfUser(db, userId, null, now, logGrantsEndedAtSignOut(await getAuditKeyring()));
  return userId;
}

function deadLink(): AppError {
  return new AppError(
    'bad_request',
    'reset_token',
    'token: this reset link has expired or was already used. Ask the operator for a new one.',
    'token',
  );
}
