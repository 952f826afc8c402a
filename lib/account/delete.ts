import { z } from 'zod';

import type { Db } from '@/db/connection';
import { deleteUser, normalizeEmail } from '@/db/queries/users';
import type { Session } from '@/lib/auth/session';
import { deleteAllFilesOf, fileDeps } from '@/lib/files/service';
import { AppError } from '@/lib/http/errors';

export const deleteAccountSchema = z
  .object({ confirm: z.string({ error: 'must be a string: type your account email' }).max(254) })
  .strict();

/**
 * Deletes the signed-in user and everything they own (conversations with their messages, runs,
 * events and tool calls; uploaded files and their bytes; notes; sessions; access tokens; linked
 * sign-ins; reset links — every owner reference cascades). The person must type their account email: a stray click or a forged request that
 * got past the other checks cannot do it.
 */
export async function deleteAccount(db: Db, session: Session, input: z.infer<typeof deleteAccountSchema>): Promise<void> {
  if (normalizeEmail(input.confirm) !== normalizeEmail(session.user.email)) {
    throw new AppError(
      'bad_request',
      'account',
      'confirm: type your account email exactly to delete the account (what was typed does not match it).',
      'confirm',
    );
  }
  // The file rows cascade with the user; their bytes are in the file store, deleted first.
  await deleteAllFilesOf(fileDeps(db), session.user.id);
  if (!(await deleteUser(db, session.user.id))) throw new AppError('unauthorized', 'session', 'Sign in to continue.');
}
