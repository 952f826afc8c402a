import { and, asc, eq, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';
import { mcpServers, organizations, orgMemberships, orgServers } from '../schema';
import { parseStored, storedReviewedTools, type StoredReviewedTools } from '../stored-json';
import type { OrgServerAuth, ServerStatus, ServerTransport, Trust } from '../vocabulary';

type RawRow = typeof mcpServers.$inferSelect;

/**
 * What a member's row of an organization's shared server carries of it (read with the row): the
 * organization names it, `required` keeps it on, and in `shared` auth the connection opens the
 * organization's sealed headers (never copied into the member's row, never put in a view).
 */
export interface OrgLink {
  orgServerId: string;
  orgId: string;
  orgName: string;
  auth: OrgServerAuth;
  required: boolean;
  headersSealed: string | null;
}

/** A server row with its JSON column parsed, and the organization's server it is a member's use of (null: the person's own). */
export type ServerRow = Omit<RawRow, 'reviewedTools'> & { reviewedTools: StoredReviewedTools; org: OrgLink | null };

export interface NewServer {
  name: string;
  namespace: string;
  url: string;
  trust: Trust;
  /** Absent: false, what a new server starts with. */
  trustContent?: boolean;
  /** Absent: true, what a new server starts with. */
  showViews?: boolean;
  headersSealed: string | null;
  oauthClientId: string | null;
  oauthClientSecretSealed: string | null;
  timeoutMs: number;
}

export type ServerPatch = Partial<NewServer>;

export interface ServerCheck {
  status: ServerStatus;
  lastError: string | null;
  protocolVersion: string | null;
  transport: ServerTransport | null;
  checkedAt: Date;
}

const NONE_REVIEWED: StoredReviewedTools = { v: 2, tools: {} };

function parse(row: RawRow, org: OrgLink | null = null): ServerRow {
  return {
    ...row,
    reviewedTools: parseStored(storedReviewedTools, row.reviewedTools, 'mcp_servers.reviewed_tools', row.id) ?? NONE_REVIEWED,
    org,
  };
}

/**
 * Server rows matching `where`, with the organization's server they use, when they use one. A
 * member's row of a shared server whose user no longer belongs to its organization is left out
 * (changeMembership deletes such rows; this is the second line): it would open the
 * organization's credential for someone outside it.
 */
function selectWithOrg(db: Db, where: SQL | undefined) {
  return db
    .select({
      server: mcpServers,
      orgServerId: orgServers.id,
      orgId: orgServers.orgId,
      orgName: organizations.name,
      auth: orgServers.auth,
      required: orgServers.required,
      orgHeadersSealed: orgServers.headersSealed,
    })
    .from(mcpServers)
    .leftJoin(orgServers, eq(orgServers.id, mcpServers.orgServerId))
    .leftJoin(organizations, eq(organizations.id, orgServers.orgId))
    .leftJoin(orgMemberships, and(eq(orgMemberships.orgId, orgServers.orgId), eq(orgMemberships.userId, mcpServers.userId)))
    .where(and(where, or(isNull(mcpServers.orgServerId), isNotNull(orgMemberships.userId))));
}

type JoinedRow = Awaited<ReturnType<typeof selectWithOrg>>[number];

function parseJoined(r: JoinedRow): ServerRow {
  const org =
    r.orgServerId && r.orgId && r.orgName !== null && r.auth && r.required !== null
      ? {
          orgServerId: r.orgServerId,
          orgId: r.orgId,
          orgName: r.orgName,
          auth: r.auth,
          required: r.required,
          headersSealed: r.orgHeadersSealed,
        }
      : null;
  return parse(r.server, org);
}

/** A write's returned row, read again with its organization's server (null when the write matched nothing). */
async function reread(db: Db, userId: string, row: RawRow | undefined): Promise<ServerRow | null> {
  return row ? getServer(db, userId, row.id) : null;
}

/**
 * A second server with the same namespace for this user (the unique index) → null. Sealed values
 * are bound to the row's id before the row exists (lib/secrets/seal-contexts.ts): with any, the
 * caller chooses the id, since one the database picked would not open them.
 */
export async function insertServer(
  db: Db,
  userId: string,
  input: NewServer & { id?: string; orgServerId?: string; enabled?: boolean; reviewedTools?: StoredReviewedTools },
): Promise<ServerRow | null> {
  if (!input.id && (input.headersSealed !== null || input.oauthClientSecretSealed !== null)) {
    throw new Error('insertServer: sealed values need the id they were sealed for');
  }
  const rows = await db
    .insert(mcpServers)
    .values({ ...input, userId })
    .onConflictDoNothing({ target: [mcpServers.userId, mcpServers.namespace] })
    .returning();
  return reread(db, userId, rows[0]);
}

/** The user's servers, oldest first (the order they were added). */
/** The ids of a user's servers whose interactive views are switched off. */
export async function serversWithViewsOff(db: Db, userId: string): Promise<Set<string>> {
  const rows = await db
    .select({ id: mcpServers.id })
    .from(mcpServers)
    .where(and(eq(mcpServers.userId, userId), eq(mcpServers.showViews, false)));
  return new Set(rows.map((r) => r.id));
}

export async function listServers(db: Db, userId: string): Promise<ServerRow[]> {
  const rows = await selectWithOrg(db, eq(mcpServers.userId, userId)).orderBy(asc(mcpServers.createdAt), asc(mcpServers.id));
  return rows.map(parseJoined);
}

/** The user's enabled servers, for the tool host. */
export async function listEnabledServers(db: Db, userId: string): Promise<ServerRow[]> {
  const rows = await selectWithOrg(db, and(eq(mcpServers.userId, userId), eq(mcpServers.enabled, true))).orderBy(asc(mcpServers.namespace));
  return rows.map(parseJoined);
}

/** Ownership is part of the lookup: another user's server reads as not found (null). */
export async function getServer(db: Db, userId: string, id: string): Promise<ServerRow | null> {
  const rows = await selectWithOrg(db, and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)));
  return rows[0] ? parseJoined(rows[0]) : null;
}

/**
 * Edits a server. With `urlChanged`, what belonged to the old URL goes in the same statement:
 * header secrets and the OAuth client secret (unless the patch sets new ones), the approval of
 * its tools, and its status. A namespace clash → 'conflict'; not the user's → null.
 */
export async function updateServer(
  db: Db,
  userId: string,
  id: string,
  patch: ServerPatch,
  opts: { urlChanged: boolean },
): Promise<ServerRow | 'conflict' | null> {
  const reset = opts.urlChanged
    ? {
        headersSealed: patch.headersSealed ?? null,
        oauthClientSecretSealed: patch.oauthClientSecretSealed ?? null,
        enabled: false,
        reviewedTools: NONE_REVIEWED,
        status: 'unchecked' as const,
        lastError: null,
        protocolVersion: null,
        transport: null,
        checkedAt: null,
      }
    : {};
  try {
    const rows = await db
      .update(mcpServers)
      .set({ ...patch, ...reset, updatedAt: new Date() })
      .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
      .returning();
    return await reread(db, userId, rows[0]);
  } catch (err) {
    if (isUniqueViolation(err)) return 'conflict';
    throw err;
  }
}

/** Records how the server answered (test, refresh, listing). */
export async function recordServerCheck(db: Db, userId: string, id: string, check: ServerCheck): Promise<ServerRow | null> {
  const rows = await db
    .update(mcpServers)
    .set(check)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
    .returning();
  return reread(db, userId, rows[0]);
}

/**
 * The person enabled the server having seen these tools: their fingerprints become the
 * approved ones (merged over what was approved before, so a tool that vanished and came back
 * unchanged stays approved).
 */
export async function enableServer(db: Db, userId: string, id: string, reviewed: Record<string, string>): Promise<ServerRow | null> {
  const current = await getServer(db, userId, id);
  if (!current) return null;
  const { tools, beforeTitles } = current.reviewedTools;
  const reviewedTools: StoredReviewedTools = { v: 2, tools: { ...tools, ...reviewed } };
  const stillBefore = Object.entries(beforeTitles ?? {}).filter(([name]) => !(name in reviewed));
  if (stillBefore.length > 0) reviewedTools.beforeTitles = Object.fromEntries(stillBefore);
  const rows = await db
    .update(mcpServers)
    .set({ enabled: true, reviewedTools, updatedAt: new Date() })
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
    .returning();
  return reread(db, userId, rows[0]);
}

/**
 * Approvals stored before titles counted (`beforeTitles`) that still match the tools as listed
 * now become approvals of today's fingerprints, title included, so a later rename is a change.
 * Compare-and-swap on the column as read: a concurrent enable or pin wins, and this one is
 * simply done again at the next listing. `pins`: tool name → today's fingerprint.
 */
export async function pinReviewedTitles(db: Db, id: string, pins: Record<string, string>): Promise<void> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id));
  if (!row) return;
  const { tools, beforeTitles = {} } = parse(row).reviewedTools;
  const pinned = Object.entries(pins).filter(([name]) => name in beforeTitles);
  if (pinned.length === 0) return;
  const rest = Object.entries(beforeTitles).filter(([name]) => !(name in pins));
  const next: StoredReviewedTools = { v: 2, tools: { ...tools, ...Object.fromEntries(pinned) } };
  if (rest.length > 0) next.beforeTitles = Object.fromEntries(rest);
  await db
    .update(mcpServers)
    .set({ reviewedTools: next })
    .where(and(eq(mcpServers.id, id), sql`${mcpServers.reviewedTools} = ${JSON.stringify(row.reviewedTools)}::jsonb`));
}

export async function setServerEnabled(db: Db, userId: string, id: string, enabled: boolean): Promise<ServerRow | null> {
  const rows = await db
    .update(mcpServers)
    .set({ enabled, updatedAt: new Date() })
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
    .returning();
  return reread(db, userId, rows[0]);
}

export async function deleteServer(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(mcpServers)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
    .returning({ id: mcpServers.id });
  return rows.length > 0;
}

/** A unique index refused the write (Postgres 23505, however deep the driver wrapped it). */
export function isUniqueViolation(err: unknown): boolean {
  for (let cur: unknown = err, i = 0; cur && i < 4; i++) {
    if ((cur as { code?: unknown }).code === '23505') return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
