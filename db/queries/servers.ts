import { and, asc, eq } from 'drizzle-orm';

import type { Db } from '../connection';
import { mcpServers } from '../schema';
import { parseStored, storedReviewedTools, type StoredReviewedTools } from '../stored-json';
import type { ServerStatus, ServerTransport, Trust } from '../vocabulary';

type RawRow = typeof mcpServers.$inferSelect;
/** A server row with its JSON column parsed. */
export type ServerRow = Omit<RawRow, 'reviewedTools'> & { reviewedTools: StoredReviewedTools };

export interface NewServer {
  name: string;
  namespace: string;
  url: string;
  trust: Trust;
  /** Absent: false, what a new server starts with. */
  trustContent?: boolean;
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

function parse(row: RawRow): ServerRow {
  return {
    ...row,
    reviewedTools: parseStored(storedReviewedTools, row.reviewedTools, 'mcp_servers.reviewed_tools', row.id) ?? { v: 1, tools: {} },
  };
}

/** A second server with the same namespace for this user (the unique index) → null. */
export async function insertServer(db: Db, userId: string, input: NewServer): Promise<ServerRow | null> {
  const rows = await db
    .insert(mcpServers)
    .values({ ...input, userId })
    .onConflictDoNothing({ target: [mcpServers.userId, mcpServers.namespace] })
    .returning();
  return rows[0] ? parse(rows[0]) : null;
}

/** The user's servers, oldest first (the order they were added). */
export async function listServers(db: Db, userId: string): Promise<ServerRow[]> {
  const rows = await db
    .select()
    .from(mcpServers)
    .where(eq(mcpServers.userId, userId))
    .orderBy(asc(mcpServers.createdAt), asc(mcpServers.id));
  return rows.map(parse);
}

/** The user's enabled servers, for the tool host. */
export async function listEnabledServers(db: Db, userId: string): Promise<ServerRow[]> {
  const rows = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.userId, userId), eq(mcpServers.enabled, true)))
    .orderBy(asc(mcpServers.namespace));
  return rows.map(parse);
}

/** Ownership is part of the lookup: another user's server reads as not found (null). */
export async function getServer(db: Db, userId: string, id: string): Promise<ServerRow | null> {
  const rows = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)));
  return rows[0] ? parse(rows[0]) : null;
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
        reviewedTools: { v: 1 as const, tools: {} },
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
    return rows[0] ? parse(rows[0]) : null;
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
  return rows[0] ? parse(rows[0]) : null;
}

/**
 * The person enabled the server having seen these tools: their fingerprints become the
 * approved ones (merged over what was approved before, so a tool that vanished and came back
 * unchanged stays approved).
 */
export async function enableServer(db: Db, userId: string, id: string, reviewed: Record<string, string>): Promise<ServerRow | null> {
  const current = await getServer(db, userId, id);
  if (!current) return null;
  const tools = { ...current.reviewedTools.tools, ...reviewed };
  const rows = await db
    .update(mcpServers)
    .set({ enabled: true, reviewedTools: { v: 1, tools }, updatedAt: new Date() })
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
    .returning();
  return rows[0] ? parse(rows[0]) : null;
}

export async function setServerEnabled(db: Db, userId: string, id: string, enabled: boolean): Promise<ServerRow | null> {
  const rows = await db
    .update(mcpServers)
    .set({ enabled, updatedAt: new Date() })
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
    .returning();
  return rows[0] ? parse(rows[0]) : null;
}

export async function deleteServer(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(mcpServers)
    .where(and(eq(mcpServers.id, id), eq(mcpServers.userId, userId)))
    .returning({ id: mcpServers.id });
  return rows.length > 0;
}

function isUniqueViolation(err: unknown): boolean {
  for (let cur: unknown = err, i = 0; cur && i < 4; i++) {
    if ((cur as { code?: unknown }).code === '23505') return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
