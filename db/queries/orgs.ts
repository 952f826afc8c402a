import { and, asc, eq, gt, isNull, ne, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { organizations, orgInvitations, orgMemberships, users } from '../schema';
import type { OrgRole } from '../vocabulary';
import { isUniqueViolation } from './servers';

export type OrgRow = typeof organizations.$inferSelect;

/**
 * Creates the default organization with `ownerId` as its owner, unless one exists (the partial
 * unique index decides, so two first sign-ups at once make one). True when this call made it.
 */
export async function createDefaultOrg(db: Db, name: string, ownerId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .insert(organizations)
      .values({ name, isDefault: true })
      .onConflictDoNothing({ target: organizations.isDefault, where: sql`${organizations.isDefault}` })
      .returning({ id: organizations.id });
    if (!rows[0]) return false;
    await tx.insert(orgMemberships).values({ orgId: rows[0].id, userId: ownerId, role: 'owner' });
    return true;
  });
}

/** The account created first (the operator's), or null on an empty database. */
export async function firstUserId(db: Db): Promise<string | null> {
  const rows = await db.select({ id: users.id }).from(users).orderBy(asc(users.createdAt), asc(users.id)).limit(1);
  return rows[0]?.id ?? null;
}

export async function insertOrg(db: Db, input: { name: string; joinDomain?: string | null }): Promise<OrgRow> {
  const rows = await db.insert(organizations).values(input).returning();
  return rows[0]!;
}

/** Adds a member; false when they already belong (their role is left as it is). */
export async function addMembership(db: Db, orgId: string, userId: string, role: OrgRole): Promise<boolean> {
  const rows = await db
    .insert(orgMemberships)
    .values({ orgId, userId, role })
    .onConflictDoNothing()
    .returning({ orgId: orgMemberships.orgId });
  return rows.length > 0;
}

/** The person's organizations with their role there, oldest membership first. */
export async function listOrgsOfUser(db: Db, userId: string) {
  return db
    .select({ id: organizations.id, name: organizations.name, role: orgMemberships.role, joinDomain: organizations.joinDomain })
    .from(orgMemberships)
    .innerJoin(organizations, eq(organizations.id, orgMemberships.orgId))
    .where(eq(orgMemberships.userId, userId))
    .orderBy(asc(orgMemberships.createdAt), asc(organizations.id));
}

/** The person's role in the organization, or null when they do not belong to it (or it does not exist). */
export async function roleIn(db: Db, orgId: string, userId: string): Promise<OrgRole | null> {
  const rows = await db
    .select({ role: orgMemberships.role })
    .from(orgMemberships)
    .where(and(eq(orgMemberships.orgId, orgId), eq(orgMemberships.userId, userId)))
    .limit(1);
  return rows[0]?.role ?? null;
}

export async function countOwners(db: Db, orgId: string, exceptUserId: string): Promise<number> {
  const rows = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(orgMemberships)
    .where(and(eq(orgMemberships.orgId, orgId), eq(orgMemberships.role, 'owner'), ne(orgMemberships.userId, exceptUserId)));
  return rows[0]?.n ?? 0;
}

export async function setMembershipRole(db: Db, orgId: string, userId: string, role: OrgRole): Promise<boolean> {
  const rows = await db
    .update(orgMemberships)
    .set({ role })
    .where(and(eq(orgMemberships.orgId, orgId), eq(orgMemberships.userId, userId)))
    .returning({ orgId: orgMemberships.orgId });
  return rows.length > 0;
}

/** Sets the join domain; false when another organization has it (the unique index decides). */
export async function setJoinDomain(db: Db, orgId: string, joinDomain: string | null): Promise<boolean> {
  try {
    await db.update(organizations).set({ joinDomain }).where(eq(organizations.id, orgId));
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function findOrgByJoinDomain(db: Db, domain: string): Promise<OrgRow | null> {
  const rows = await db.select().from(organizations).where(eq(organizations.joinDomain, domain)).limit(1);
  return rows[0] ?? null;
}

export async function insertInvitation(db: Db, input: { tokenHash: string; orgId: string; createdBy: string; expiresAt: Date }) {
  await db.insert(orgInvitations).values(input);
}

/**
 * Uses an invitation once and joins the person as a member, together. `expired_or_used` covers
 * an unknown token too (the link says nothing more); `already_member` leaves the link unused.
 */
export async function acceptInvitation(
  db: Db,
  tokenHash: string,
  userId: string,
  now = new Date(),
): Promise<{ ok: true; orgId: string } | { ok: false; reason: 'expired_or_used' | 'already_member' }> {
  return db.transaction(async (tx) => {
    const used = await tx
      .update(orgInvitations)
      .set({ usedAt: now, usedBy: userId })
      .where(and(eq(orgInvitations.tokenHash, tokenHash), isNull(orgInvitations.usedAt), gt(orgInvitations.expiresAt, now)))
      .returning({ orgId: orgInvitations.orgId });
    if (!used[0]) return { ok: false, reason: 'expired_or_used' };
    const joined = await tx
      .insert(orgMemberships)
      .values({ orgId: used[0].orgId, userId, role: 'member' })
      .onConflictDoNothing()
      .returning({ orgId: orgMemberships.orgId });
    if (!joined[0]) {
      // Undo the use: the link stays good for the person it was meant for.
      await tx.update(orgInvitations).set({ usedAt: null, usedBy: null }).where(eq(orgInvitations.tokenHash, tokenHash));
      return { ok: false, reason: 'already_member' };
    }
    return { ok: true, orgId: used[0].orgId };
  });
}

export async function findOrgName(db: Db, orgId: string): Promise<string | null> {
  const rows = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return rows[0]?.name ?? null;
}
