import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { auditEntries, mcpServers, organizations, orgInvitations, orgMemberships, orgServers, users } from '../schema';
import { DEFAULT_ORG_POLICY, parseStored, storedOrgPolicy, type StoredOrgPolicy } from '../stored-json';
import type { OrgRole } from '../vocabulary';
import { deleteMemberRowsOfOrg, type RemovedMemberRow } from './org-servers';
import { rowsOf } from './rate-limits';
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
    // The organization's policy applies from their next step on.
    await bumpToolsRevOfOrg(tx, used[0].orgId, userId);
    return { ok: true, orgId: used[0].orgId };
  });
}

export async function findOrgName(db: Db, orgId: string): Promise<string | null> {
  const rows = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return rows[0]?.name ?? null;
}

// ── policy ─────────────────────────────────────────────────────────────────────────────────

export interface OrgPolicyRow {
  orgId: string;
  orgName: string;
  policy: StoredOrgPolicy;
  /**
   * The person's rows of this organization's shared servers (by `org_server_id`): row id → the
   * namespace the organization gave the server. A member's row may carry another (`tracker2`,
   * when they had a server named `tracker`), and the policy's lists name the organization's.
   */
  sharedNamespaces: Record<string, string>;
  /** The namespaces of all this organization's shared servers, used or not (an allow entry naming one covers that server only). */
  orgNamespaces: string[];
}

/** The organization's policy as stored, or the default (nothing narrowed) when it set none. */
export async function getOrgPolicy(db: Db, orgId: string): Promise<StoredOrgPolicy> {
  const rows = await db.select({ policy: organizations.policy }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return parseStored(storedOrgPolicy, rows[0]?.policy, 'organizations.policy', orgId) ?? DEFAULT_ORG_POLICY;
}

/**
 * The policies of every organization the person belongs to that set one (none narrows nothing),
 * each with the person's rows of that organization's shared servers.
 */
export async function listPoliciesOfUser(db: Db, userId: string): Promise<OrgPolicyRow[]> {
  const rows = await db
    .select({ orgId: organizations.id, orgName: organizations.name, policy: organizations.policy })
    .from(orgMemberships)
    .innerJoin(organizations, eq(organizations.id, orgMemberships.orgId))
    .where(and(eq(orgMemberships.userId, userId), isNotNull(organizations.policy)))
    .orderBy(asc(orgMemberships.createdAt), asc(organizations.id));
  if (!rows.length) return [];
  const shared = await db
    .select({ rowId: mcpServers.id, orgId: orgServers.orgId, namespace: orgServers.namespace })
    .from(mcpServers)
    .innerJoin(orgServers, eq(orgServers.id, mcpServers.orgServerId))
    .where(
      and(
        eq(mcpServers.userId, userId),
        inArray(
          orgServers.orgId,
          rows.map((r) => r.orgId),
        ),
      ),
    );
  const definitions = await db
    .select({ orgId: orgServers.orgId, namespace: orgServers.namespace })
    .from(orgServers)
    .where(
      inArray(
        orgServers.orgId,
        rows.map((r) => r.orgId),
      ),
    );
  return rows.map((r) => ({
    ...r,
    policy: parseStored(storedOrgPolicy, r.policy, 'organizations.policy', r.orgId)!,
    sharedNamespaces: Object.fromEntries(shared.filter((s) => s.orgId === r.orgId).map((s) => [s.rowId, s.namespace])),
    orgNamespaces: definitions.filter((d) => d.orgId === r.orgId).map((d) => d.namespace),
  }));
}

/**
 * Stores the policy and bumps `users.tools_rev` of every member in the same transaction, so the
 * next step of a running conversation (and the re-check before its calls run) reads it.
 */
export async function setOrgPolicy(db: Db, orgId: string, policy: StoredOrgPolicy): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(organizations).set({ policy }).where(eq(organizations.id, orgId));
    await bumpToolsRevOfOrg(tx, orgId);
  });
}

async function bumpToolsRevOfOrg(db: Db, orgId: string, userId?: string): Promise<void> {
  await db.execute(sql`
    update users set tools_rev = tools_rev + 1
    where id in (select user_id from org_memberships where org_id = ${orgId})
      ${userId ? sql`and id = ${userId}` : sql``}`);
}

// ── members ────────────────────────────────────────────────────────────────────────────────

export async function listMembers(db: Db, orgId: string) {
  return db
    .select({
      userId: orgMemberships.userId,
      email: users.email,
      name: users.name,
      role: orgMemberships.role,
      joinedAt: orgMemberships.createdAt,
    })
    .from(orgMemberships)
    .innerJoin(users, eq(users.id, orgMemberships.userId))
    .where(eq(orgMemberships.orgId, orgId))
    .orderBy(asc(orgMemberships.createdAt), asc(users.id));
}

export type MemberChange = { kind: 'role'; role: OrgRole } | { kind: 'remove' };

/**
 * Changes a member's role or removes them, never leaving the organization without an owner:
 * the organization's row is locked first, so two requests at once (two owners demoting each
 * other) are judged one after the other and the second sees the first. `not_member`: they do not
 * belong; `last_owner`: this is the only owner.
 */
export async function changeMembership(
  db: Db,
  orgId: string,
  userId: string,
  change: MemberChange,
): Promise<{ ok: true; removedRows: RemovedMemberRow[] } | { ok: false; reason: 'not_member' | 'last_owner' }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select id from organizations where id = ${orgId} for update`);
    const current = await roleIn(tx, orgId, userId);
    if (!current) return { ok: false, reason: 'not_member' };
    const losesOwner = current === 'owner' && (change.kind === 'remove' || change.role !== 'owner');
    if (losesOwner && (await countOwners(tx, orgId, userId)) === 0) return { ok: false, reason: 'last_owner' };
    const where = and(eq(orgMemberships.orgId, orgId), eq(orgMemberships.userId, userId));
    if (change.kind === 'remove') {
      // Their tools_rev moves first: the organization's policy stops applying at their next step.
      await bumpToolsRevOfOrg(tx, orgId, userId);
      // Their use of the organization's shared servers ends with the membership.
      const removedRows = await deleteMemberRowsOfOrg(tx, orgId, userId);
      await tx.delete(orgMemberships).where(where);
      return { ok: true, removedRows };
    }
    await tx.update(orgMemberships).set({ role: change.role }).where(where);
    return { ok: true, removedRows: [] };
  });
}

// ── usage and audit, per member ────────────────────────────────────────────────────────────

/**
 * Turns started, model tokens and tool calls of each member since `since`, and never from before
 * they joined (what they did before is theirs, not the organization's). Tokens are kept per UTC
 * day, so they count from the day they joined.
 */
export async function usageOfMembers(db: Db, orgId: string, since: Date) {
  const day = since.toISOString().slice(0, 10);
  const rows = rowsOf<{ user_id: string; email: string; turns: number | string; tokens: number | string; tool_calls: number | string }>(
    await db.execute(sql`
      select m.user_id, u.email,
        (select count(*) from runs r
          where r.user_id = m.user_id and r.created_at >= ${since} and r.created_at >= m.created_at) as turns,
        (select coalesce(sum(mu.tokens), 0) from model_usage mu
          where mu.user_id = m.user_id and mu.day >= ${day}
            and mu.day >= to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD')) as tokens,
        (select count(*) from tool_calls tc
          where tc.user_id = m.user_id and tc.created_at >= ${since} and tc.created_at >= m.created_at) as tool_calls
      from org_memberships m join users u on u.id = m.user_id
      where m.org_id = ${orgId}
      order by m.created_at, m.user_id`),
  );
  return rows.map((r) => ({
    userId: r.user_id,
    email: r.email,
    turns: Number(r.turns),
    tokens: Number(r.tokens),
    toolCalls: Number(r.tool_calls),
  }));
}

/**
 * The members' tool calls as the audit log records them, metadata only: who, when, which server
 * and tool, the outcome. The entry's content (arguments, results, hashes) is never selected.
 * Only entries from when the member joined: their history before is not the organization's.
 * Newest first; `before` (an entry's id, the last of the previous page) pages by (time, id) as the
 * database holds them — a time written out in milliseconds would skip entries that share one.
 */
export async function auditMetadataOfOrg(db: Db, orgId: string, opts: { limit: number; before?: string }) {
  return db
    .select({
      id: auditEntries.id,
      at: auditEntries.at,
      userId: auditEntries.userId,
      email: users.email,
      serverId: auditEntries.serverId,
      serverName: sql<string | null>`${auditEntries.content}->'server'->>'name'`,
      tool: auditEntries.tool,
      outcome: auditEntries.outcome,
    })
    .from(auditEntries)
    .innerJoin(
      orgMemberships,
      and(eq(orgMemberships.userId, auditEntries.userId), eq(orgMemberships.orgId, orgId), gte(auditEntries.at, orgMemberships.createdAt)),
    )
    .innerJoin(users, eq(users.id, auditEntries.userId))
    .where(
      and(
        inArray(auditEntries.kind, ['tool_call', 'client_call']),
        opts.before
          ? sql`(${auditEntries.at}, ${auditEntries.id}) < (select b.at, b.id from audit_entries b where b.id = ${opts.before})`
          : undefined,
      ),
    )
    .orderBy(desc(auditEntries.at), desc(auditEntries.id))
    .limit(opts.limit);
}
