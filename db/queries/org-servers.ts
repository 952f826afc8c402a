import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { mcpServers, organizations, orgMemberships, orgServers } from '../schema';
import { parseStored, storedReviewedTools, type StoredReviewedTools } from '../stored-json';
import type { OrgServerAuth, Trust } from '../vocabulary';
import { rowsOf } from './rate-limits';
import { isUniqueViolation } from './servers';

/**
 * An organization's shared servers (org_servers) and the members' rows that use them
 * (mcp_servers.org_server_id). A member's row is made from the shared server's definition and
 * follows it: name, URL, trust, timeout and the reviewed tools; it never holds the shared credential.
 */

type RawOrgServer = typeof orgServers.$inferSelect;
export type OrgServerRow = Omit<RawOrgServer, 'reviewedTools'> & { reviewedTools: StoredReviewedTools };

const NONE_REVIEWED: StoredReviewedTools = { v: 2, tools: {} };

function parse(row: RawOrgServer): OrgServerRow {
  return {
    ...row,
    reviewedTools: parseStored(storedReviewedTools, row.reviewedTools, 'org_servers.reviewed_tools', row.id) ?? NONE_REVIEWED,
  };
}

export interface NewOrgServer {
  id: string;
  orgId: string;
  name: string;
  namespace: string;
  url: string;
  auth: OrgServerAuth;
  headersSealed: string | null;
  required: boolean;
  trust: Trust;
  createdBy: string | null;
}

/** Null: the organization has a shared server with this namespace already. */
export async function insertOrgServer(db: Db, input: NewOrgServer): Promise<OrgServerRow | null> {
  const rows = await db.insert(orgServers).values(input).onConflictDoNothing().returning();
  return rows[0] ? parse(rows[0]) : null;
}

export async function listOrgServers(db: Db, orgId: string): Promise<OrgServerRow[]> {
  const rows = await db.select().from(orgServers).where(eq(orgServers.orgId, orgId)).orderBy(asc(orgServers.createdAt), asc(orgServers.id));
  return rows.map(parse);
}

/** Scoped to the organization: another organization's server reads as not found (null). */
export async function getOrgServer(db: Db, orgId: string, id: string): Promise<OrgServerRow | null> {
  const rows = await db
    .select()
    .from(orgServers)
    .where(and(eq(orgServers.orgId, orgId), eq(orgServers.id, id)));
  return rows[0] ? parse(rows[0]) : null;
}

export type OrgServerPatch = Partial<Pick<NewOrgServer, 'name' | 'required' | 'headersSealed' | 'trust'>>;

/**
 * Edits the shared server and, in the same transaction, the members' rows that follow it (their
 * write moves each member's tools_rev, so a changed credential or name applies at their next step).
 * Null: no such server in this organization.
 */
export async function updateOrgServer(db: Db, orgId: string, id: string, patch: OrgServerPatch): Promise<OrgServerRow | null> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(orgServers)
      .set({ ...patch, updatedAt: new Date() })
      .where(and(eq(orgServers.orgId, orgId), eq(orgServers.id, id)))
      .returning();
    if (!rows[0]) return null;
    await tx
      .update(mcpServers)
      .set({ name: rows[0].name, trust: rows[0].trust, updatedAt: new Date() })
      .where(eq(mcpServers.orgServerId, id));
    return parse(rows[0]);
  });
}

/**
 * Deletes the shared server and every member's row of it in one transaction, returning those rows
 * (each member's tools_rev moves with its row) so that what only they found can be dropped after.
 * The organization's row is held FOR UPDATE, as a removal of a member does: a member's row being
 * inserted (insertMemberRow, FOR SHARE) is either among those returned or finds the server gone.
 * Null: no such server in this organization.
 */
export async function deleteOrgServer(db: Db, orgId: string, id: string): Promise<{ id: string; userId: string }[] | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select id from organizations where id = ${orgId} for update`);
    const found = await tx
      .select({ id: orgServers.id })
      .from(orgServers)
      .where(and(eq(orgServers.orgId, orgId), eq(orgServers.id, id)));
    if (!found[0]) return null;
    const rows = await tx
      .delete(mcpServers)
      .where(eq(mcpServers.orgServerId, id))
      .returning({ id: mcpServers.id, userId: mcpServers.userId });
    await tx.delete(orgServers).where(eq(orgServers.id, id));
    return rows;
  });
}

/**
 * The admin reviewed these tools: they become the shared server's approved fingerprints, and every
 * member's row follows (enabled once something is approved), in one transaction.
 */
export async function setOrgServerReviewed(db: Db, orgId: string, id: string, tools: Record<string, string>): Promise<OrgServerRow | null> {
  const reviewedTools: StoredReviewedTools = { v: 2, tools };
  const enabled = Object.keys(tools).length > 0;
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(orgServers)
      .set({ reviewedTools, updatedAt: new Date() })
      .where(and(eq(orgServers.orgId, orgId), eq(orgServers.id, id)))
      .returning();
    if (!rows[0]) return null;
    await tx.update(mcpServers).set({ reviewedTools, enabled, updatedAt: new Date() }).where(eq(mcpServers.orgServerId, id));
    return parse(rows[0]);
  });
}

/** The member's row of this shared server, or null when they do not use it. */
export async function memberRowIdOf(db: Db, userId: string, orgServerId: string): Promise<string | null> {
  const rows = await db
    .select({ id: mcpServers.id })
    .from(mcpServers)
    .where(and(eq(mcpServers.userId, userId), eq(mcpServers.orgServerId, orgServerId)));
  return rows[0]?.id ?? null;
}

/** Every member's row of this shared server (user and row id). */
export async function memberRowsOf(db: Db, orgServerId: string): Promise<{ id: string; userId: string }[]> {
  return db.select({ id: mcpServers.id, userId: mcpServers.userId }).from(mcpServers).where(eq(mcpServers.orgServerId, orgServerId));
}

/**
 * A member's row of the shared server, following it. Its namespace is the shared server's, or with
 * a number when the member has a server of their own by that name. Null when they have one already
 * (two requests at once make one), when they do not belong to its organization (any more), or
 * when the shared server is gone.
 *
 * Only the shared server's id is taken from the caller: membership and every copied value (name,
 * URL, trust, timeout, reviewed tools) are read by the insert itself, so a removal, a review or an
 * edit committed since the caller's read is what the row gets. The organization's row is held FOR
 * SHARE first, the lock changeMembership takes FOR UPDATE: a removal under way finishes before
 * the insert's statement starts (and it then sees the membership gone), and one that starts later
 * waits for this row and deletes it.
 */
export async function insertMemberRow(db: Db, userId: string, server: Pick<OrgServerRow, 'id'>): Promise<string | null> {
  try {
    return await db.transaction(async (tx) => {
      const locked = rowsOf<{ namespace: string }>(
        await tx.execute(
          sql`select s.namespace from org_servers s join organizations o on o.id = s.org_id where s.id = ${server.id} for share of o`,
        ),
      );
      const base = locked[0]?.namespace;
      if (base === undefined) return null;
      const taken = new Set(
        (await tx.select({ ns: mcpServers.namespace }).from(mcpServers).where(eq(mcpServers.userId, userId))).map((r) => r.ns),
      );
      let namespace = base;
      for (let n = 2; taken.has(namespace); n++) namespace = `${base}${n}`;
      const rows = rowsOf<{ id: string }>(
        await tx.execute(sql`
          insert into mcp_servers (user_id, org_server_id, name, namespace, url, trust, timeout_ms, reviewed_tools, enabled)
          select m.user_id, s.id, s.name, ${namespace}, s.url, s.trust, s.timeout_ms, s.reviewed_tools,
                 coalesce(s.reviewed_tools -> 'tools', '{}'::jsonb) <> '{}'::jsonb
          from org_servers s
          join org_memberships m on m.org_id = s.org_id and m.user_id = ${userId}
          where s.id = ${server.id}
          on conflict (user_id, org_server_id) do nothing
          returning id`),
      );
      return rows[0]?.id ?? null;
    });
  } catch (err) {
    if (isUniqueViolation(err)) return null; // the namespace was taken meanwhile: the next listing tries again
    throw err;
  }
}

export interface SharedServerOfMember {
  server: OrgServerRow;
  orgName: string;
  /** The member's row, when they use it. */
  rowId: string | null;
}

/** The shared servers of every organization the person belongs to, with their row of each when they have one. */
export async function sharedServersOfMember(db: Db, userId: string): Promise<SharedServerOfMember[]> {
  const rows = await db
    .select({ server: orgServers, orgName: organizations.name, rowId: mcpServers.id })
    .from(orgMemberships)
    .innerJoin(organizations, eq(organizations.id, orgMemberships.orgId))
    .innerJoin(orgServers, eq(orgServers.orgId, orgMemberships.orgId))
    .leftJoin(mcpServers, and(eq(mcpServers.orgServerId, orgServers.id), eq(mcpServers.userId, userId)))
    .where(eq(orgMemberships.userId, userId))
    .orderBy(asc(organizations.name), asc(orgServers.createdAt));
  return rows.map((r) => ({ server: parse(r.server), orgName: r.orgName, rowId: r.rowId }));
}

/** Required shared servers of the person's organizations they have no row of yet. */
export async function missingRequiredServers(db: Db, userId: string): Promise<OrgServerRow[]> {
  const rows = await db
    .select({ server: orgServers })
    .from(orgMemberships)
    .innerJoin(orgServers, and(eq(orgServers.orgId, orgMemberships.orgId), eq(orgServers.required, true)))
    .leftJoin(mcpServers, and(eq(mcpServers.orgServerId, orgServers.id), eq(mcpServers.userId, userId)))
    .where(and(eq(orgMemberships.userId, userId), isNull(mcpServers.id)));
  return rows.map((r) => parse(r.server));
}

/** A member's row of a shared server, deleted with their membership: what its URL found is forgotten after (lib/servers/org-servers.ts). */
export interface RemovedMemberRow {
  id: string;
  url: string;
}

/** Removing a member from an organization ends their use of its shared servers (inside changeMembership's transaction). */
export async function deleteMemberRowsOfOrg(db: Db, orgId: string, userId: string): Promise<RemovedMemberRow[]> {
  const ids = db.select({ id: orgServers.id }).from(orgServers).where(eq(orgServers.orgId, orgId));
  return db
    .delete(mcpServers)
    .where(and(eq(mcpServers.userId, userId), inArray(mcpServers.orgServerId, ids)))
    .returning({ id: mcpServers.id, url: mcpServers.url });
}

/** How many shared servers, in any organization, this person added: they count towards their `serversPerUser`. */
export async function countOrgServersAddedBy(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(orgServers)
    .where(eq(orgServers.createdBy, userId));
  return Number(row?.n ?? 0);
}

/** The members of the organization (for making every member's row of a required server). */
export async function memberIdsOf(db: Db, orgId: string): Promise<string[]> {
  const rows = await db.select({ userId: orgMemberships.userId }).from(orgMemberships).where(eq(orgMemberships.orgId, orgId));
  return rows.map((r) => r.userId);
}
