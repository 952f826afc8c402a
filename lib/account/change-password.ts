import { z } from 'zod';

import type { Db } from '@/db/connection';
import { endAuthSessionsOfUser } from '@/db/queries/auth-sessions';
import { claimPasswordCheck, clearPasswordCheckThrottle } from '@/db/queries/password-check-throttles';
import { findUserById, replacePasswordHash } from '@/db/queries/users';
import { getAuditKeyring } from '@/lib/audit/key';
import { checkPassword } from '@/lib/auth/credentials';
import { PASSWORD_CHECK_THROTTLE, retryIn } from '@/lib/auth/limits';
import { hashPassword } from '@/lib/auth/password';
import { newPasswordSchema } from '@/lib/auth/password-rules';
import { passwordOff, passwordSignInEnabled } from '@/lib/auth/providers';
import type { Session } from '@/lib/auth/session';
import { logGrantsEndedAtSignOut } from '@/lib/consent/grant-audit';
import { AppError } from '@/lib/http/errors';

export const changePasswordSchema = z
  .object({
    currentPassword: z.string({ error: 'must be a string' }).min(1, 'is required').max(1024, 'must be at most 1024 characters'),
    newPassword: newPasswordSchema,
  })
  .strict();

/**
 * Changes the signed-in user's password and ends every other session of theirs (a thief's
 * included); this one stays. The current password is checked under the same growing delay as
 * sign-in, keyed on the user, so a stolen session cannot be used to guess it quickly.
 */
export async function changePassword(
  db: Db,
  session: Session,
  input: z.infer<typeof changePasswordSchema>,
  now = new Date(),
): Promise<{ endedSessions: number }> {
  if (!passwordSignInEnabled()) throw passwordOff('Changing a password');
  const user = await findUserById(db, session.user.id);
  if (!user) throw new AppError('unauthorized', 'session', 'Sign in to continue.');
  if (!user.passwordHash) {
    throw new AppError('bad_request', 'password', 'This account has no password: it signs in with single sign-on.', 'currentPassword');
  }
  const throttleKey = `password-change:${user.id}`;
  const claim = await claimPasswordCheck(db, throttleKey, PASSWORD_CHECK_THROTTLE, now);
  if (!claim.allowed) {
    throw new AppError('rate_limited', 'password', `Too many wrong current passwords. Try again in ${retryIn(claim.retryAt, now)}.`);
  }
  if (!(await checkPassword(input.currentPassword, user.passwordHash))) {
    throw new AppError('forbidden', 'password', 'currentPassword: that is not your current password.', 'currentPassword');
  }
  await clearPasswordCheckThrottle(db, throttleKey);
  const changed = await replacePasswordHash(db, user.id, user.passwordHash, await hashPassword(input.newPassword));
  if (!changed) throw new AppError('conflict', 'password', 'The password was changed meanwhile from elsewhere. Reload and try again.');
  return {
    endedSessions: await endAuthSessionsOfUser(db, user.id, session.sessionId, now, logGrantsEndedAtSignOut(await getAuditKeyring())),
  };
}
