import type { Db } from '@/db/connection';
import { roleIn } from '@/db/queries/orgs';
import type { OrgRole } from '@/db/vocabulary';
import { AppError } from '@/lib/http/errors';

/** Who may manage an organization: invite, set roles, set the join domain. */
export const MANAGING_ROLES = ['owner', 'admin'] as const satisfies readonly OrgRole[];

/**
 * The caller's role in the organization, when it is one of `allowed`. Someone who does not belong
 * gets 404, as if it did not exist (an organization's id tells an outsider nothing); a member
 * without the role gets 403 saying which roles may.
 */
export async function requireOrgRole(db: Db, orgId: string, userId: string, allowed: readonly OrgRole[], doing: string): Promise<OrgRole> {
  const role = await roleIn(db, orgId, userId);
  if (!role) throw new AppError('not_found', 'organization', `No organization with id "${orgId}".`);
  if (!allowed.includes(role)) {
    throw new AppError('forbidden', 'organization', `Only an organization's ${allowed.join(' or ')} can ${doing}; you are a ${role}.`);
  }
  return role;
}
