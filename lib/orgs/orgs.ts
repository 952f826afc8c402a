import { z } from 'zod';

import type { Db } from '@/db/connection';
import type { RemovedMemberRow } from '@/db/queries/org-servers';
import { addMembership, changeMembership, insertOrg, listOrgsOfUser, roleIn, setJoinDomain } from '@/db/queries/orgs';
import { findUserById } from '@/db/queries/users';
import { ORG_ROLES, type OrgRole } from '@/db/vocabulary';
import { AppError } from '@/lib/http/errors';

import { MANAGING_ROLES, requireOrgRole } from './access';
import { isPublicMailDomain } from './public-mail-domains';

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
  if (!current) throw notMember(targetId);
  if (actor !== 'owner' && (current === 'owner' || role === 'owner')) {
    throw new AppError('forbidden', 'organization', 'Only an owner can make someone an owner or change an owner’s role.', 'role');
  }
  settled(await changeMembership(db, orgId, targetId, { kind: 'role', role }), targetId);
  return { role };
}

/**
 * Removes a member (`DELETE …/members/:userId`): an owner removes anyone, an admin removes admins
 * and members, never an owner. Everything the person owns stays theirs; the organization's policy
 * stops applying to them. The last owner cannot be removed.
 */
export async function removeMember(
  db: Db,
  orgId: string,
  actorId: string,
  targetId: string,
): Promise<{ removed: true; sharedRows: RemovedMemberRow[] }> {
  const actor = await requireOrgRole(db, orgId, actorId, MANAGING_ROLES, 'remove members');
  const current = await roleIn(db, orgId, targetId);
  if (!current) throw notMember(targetId);
  if (actor !== 'owner' && current === 'owner') {
    throw new AppError('forbidden', 'organization', 'Only an owner can remove an owner.', 'userId');
  }
  const outcome = await changeMembership(db, orgId, targetId, { kind: 'remove' });
  settled(outcome, targetId);
  // Their rows of the organization's shared servers went with the membership; what those rows found
  // (OAuth sign-ins, kept sessions) is forgotten by lib/servers/org-servers.ts `removeOrgMember`.
  return { removed: true, sharedRows: outcome.ok ? outcome.removedRows : [] };
}

const notMember = (id: string) => new AppError('not_found', 'member', `No member with id "${id}" in this organization.`);

/** The outcome of a locked change (db/queries/orgs.ts `changeMembership`), or its refusal. */
function settled(outcome: Awaited<ReturnType<typeof changeMembership>>, targetId: string): void {
  if (outcome.ok) return;
  if (outcome.reason === 'not_member') throw notMember(targetId);
  throw new AppError('conflict', 'organization', 'This is the only owner: make someone else an owner first.', 'role');
}

export const createOrgSchema = z
  .object({ name: z.string({ error: 'must be a name' }).trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters') })
  .strict();

/**
 * Makes an organization with the caller as its owner (`POST /api/orgs`). It gives them power over
 * nobody: people join only by an invitation they accept (a join domain needs a verified email there).
 */
export async function createOrg(db: Db, userId: string, input: z.infer<typeof createOrgSchema>): Promise<MyOrg> {
  const org = await insertOrg(db, { name: input.name });
  await addMembership(db, org.id, userId, 'owner');
  return { id: org.id, name: org.name, role: 'owner', joinDomain: null };
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

/**
 * The email domain whose verified single sign-ons join as members (null: none); owner or admin,
 * and only a domain where their own email is verified, never a public provider's
 * (./public-mail-domains.ts): anyone may make an organization (`createOrg`), and a domain claimed
 * by someone outside it would take its people's sign-ups.
 */
export async function updateOrgSettings(db: Db, orgId: string, userId: string, input: z.infer<typeof orgSettingsSchema>) {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'change its settings');
  if (input.joinDomain !== null) {
    if (isPublicMailDomain(input.joinDomain)) {
      throw new AppError(
        'bad_request',
        'organization',
        `joinDomain: ${input.joinDomain} is a public email provider's: anyone can have an address there, so it cannot bring people ` +
          'into an organization. Use your company’s own domain, or invite people by link.',
        'joinDomain',
      );
    }
    const me = await findUserById(db, userId);
    if (!me?.emailVerifiedAt || me.email.toLowerCase().split('@')[1] !== input.joinDomain) {
      throw new AppError(
        'forbidden',
        'organization',
        `joinDomain: you can set only the domain of your own verified email (sign in once by single sign-on at ${input.joinDomain}).`,
        'joinDomain',
      );
    }
  }
  if (!(await setJoinDomain(db, orgId, input.joinDomain))) {
    throw new AppError('conflict', 'organization', `Another organization already takes people from ${input.joinDomain}.`, 'joinDomain');
  }
  return { joinDomain: input.joinDomain };
}
