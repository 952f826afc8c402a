import type { Db } from '@/db/connection';
import { createDefaultOrg, firstUserId } from '@/db/queries/orgs';

export const DEFAULT_ORG_NAME = 'My organization';

/**
 * The operator's first account owns the default organization. It is made when an account is
 * created (password sign-up, or the first single sign-on) rather than by a CLI: a fresh install
 * needs no extra step, and on a database that already has people the owner is still the account
 * created first (not whoever happens to sign up next). Other accounts join by invitation or by
 * email domain; accounts made before organizations existed stay as they were (no organization
 * is required for anything yet).
 */
export async function ensureDefaultOrganization(db: Db): Promise<void> {
  const first = await firstUserId(db);
  if (first) await createDefaultOrg(db, DEFAULT_ORG_NAME, first);
}
