import type { Db } from '@/db/connection';
import { findUserById } from '@/db/queries/users';

/**
 * The one sentence the account page shows when a single sign-on took this account over and
 * removed its password (lib/auth/sso-link.ts), so a person who once set one is not left guessing
 * why it no longer works. Null when that never happened.
 */
export async function passwordRemovedNotice(db: Db, userId: string): Promise<string | null> {
  const by = (await findUserById(db, userId))?.passwordRemovedBy;
  return by ? `This account now signs in through ${by}; its password was removed because ${by} confirmed the email address.` : null;
}
