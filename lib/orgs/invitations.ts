import type { Db } from '@/db/connection';
import { acceptInvitation, findOrgName, insertInvitation } from '@/db/queries/orgs';
import { AppError } from '@/lib/http/errors';
import { hashRandomToken, newRandomToken } from '@/lib/random-token';

import { MANAGING_ROLES, requireOrgRole } from './access';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function invitationUrl(origin: string, token: string): string {
  return `${origin}/invitations/${token}`;
}

/** A one-time link that joins whoever opens it signed in as a member; only an owner or admin makes one. */
export async function createInvitation(
  db: Db,
  orgId: string,
  userId: string,
  origin: string,
  now = new Date(),
): Promise<{ url: string; expiresAt: string }> {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'invite people');
  const token = newRandomToken();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  await insertInvitation(db, { tokenHash: hashRandomToken(token), orgId, createdBy: userId, expiresAt });
  return { url: invitationUrl(origin, token), expiresAt: expiresAt.toISOString() };
}

/** Joins the signed-in person as a member, using the link up. */
export async function acceptInvitationToken(
  db: Db,
  token: string,
  userId: string,
  now = new Date(),
): Promise<{ orgId: string; name: string; role: 'member' }> {
  const result = await acceptInvitation(db, hashRandomToken(token), userId, now);
  if (!result.ok && result.reason === 'already_member') {
    throw new AppError('conflict', 'invitation', 'You already belong to this organization; the link is left for someone else.');
  }
  if (!result.ok) {
    throw new AppError('not_found', 'invitation', 'This invitation link has expired or was already used. Ask for a new one.');
  }
  return { orgId: result.orgId, name: (await findOrgName(db, result.orgId)) ?? '', role: 'member' };
}
