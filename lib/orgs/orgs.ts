import { z } from 'zod';

import type { Db } from '@/db/connection';
import { countOwners, listOrgsOfUser, roleIn, setJoinDomain, setMembershipRole } from '@/db/queries/orgs';
import { ORG_ROLES, type OrgRole } from '@/db/vocabulary';
import { AppError } from '@/lib/http/errors';

import { MANAGING_ROLES, requireOrgRole } from './access';

export type MyOrg = Awaited<ReturnType<typeof listOrgsOfUser>>[number];

/** The signed-in person's organizations with their role (`GET /api/orgs`). */
export async function listMyOrgs(db: Db, userId: string): Promise<MyOrg[]> {
  return listOrgsOfUser(db, userId);
}

export const setRoleSchema = z.object({ role: z.enum(ORG_ROLES, { error: `must be one of ${ORG_ROLES.join(', ')}` }) }).strict();

/**
 * Sets a member's role. An owner sets any role; an admin sets admin or member, and never an
 * owner's; a member sets none. The last owner stays an owner (somebody must be able to manage).
 */
export async function changeRole(db: Db, orgId: string, actorId: string, targetId: string, role: OrgRole): Promise<{ role: OrgRole }> {
  const actor = await requireOrgRole(db, orgId, actorId, MANAGING_ROLES, 'change roles');
  const current = await roleIn(db, orgId, targetId);
  if (!current) throw new AppError('not_found', 'member', `No member with id "${targetId}" in this organization.`);
  if (actor !== 'owner' && (current === 'owner' || role === 'owner')) {
    throw new AppError('forbidden', 'organization', 'Only an owner can make someone an owner or change an owner’s role.', 'role');
  }
  if (current === 'owner' && role !== 'owner' && (await countOwners(db, orgId, targetId)) === 0) {
    throw new AppError('conflict', 'organization', 'This is the only owner: make someone else an owner first.', 'role');
  }
  await setMembershipRole(db, orgId, targetId, role);
  return { role };
}

export const orgSettingsSchema = z
  .object({
    joinDomain: z
      .string({ error: 'must be a domain like example.com, or null' })
      .trim()
      .toLowerCase()
      .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain like example.com (no @, no scheme)')
      .nullable(),
  })
  .strict();

/** The email domain whose verified single sign-ons join as members (null: none); owner or admin. */
export async function updateOrgSettings(db: Db, orgId: string, userId: string, input: z.infer<typeof orgSettingsSchema>) {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'change its settings');
  if (!(await setJoinDomain(db, orgId, input.joinDomain))) {
    throw new AppError('conflict', 'organization', `Another organization already takes people from ${input.joinDomain}.`, 'joinDomain');
  }
  return { joinDomain: input.joinDomain };
}
