import { and, asc, desc, eq, gt, gte, inArray, lt, lte, max, sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';
import { auditChainHeads, auditEntries, conversations, mcpServers } from '../schema';
import { parseStored, storedAuditContent, type StoredAuditContent } from '../stored-json';
import type { AuditOutcome } from '../vocabulary';
import { rowsOf } from './rate-limits';

export type AuditEntryRow = typeof auditEntries.$inferSelect;
export type NewAuditEntry = typeof auditEntries.$inferInsert;
export type AuditHeadRow = typeof auditChainHeads.$inferSelect;

/** The content through its schema: a row that no version accepts throws StoredShapeError. */
export function parseAuditRow(raw: AuditEntryRow): AuditEntryRow & { content: StoredAuditContent } {
  return { ...raw, content: parseStored(storedAuditContent, raw.content, 'audit_entries.content', raw.id)! };
}

/**
 * The user's chain head, locked until the transaction ends: every append goes through here, so
 * appends of one user (parallel calls, several instances) take their turn and number one chain.
 */
export async function lockChainHead(tx: Db, userId: string): Promise<AuditHeadRow> {
  // One statement: the upsert creates the head on first use, and its (no-op) update of an
  // existing head takes the row lock, as FOR UPDATE would, until the transaction ends.
  const rows = await tx
    .insert(auditChainHeads)
    .values({ userId })
    .onConflictDoUpdate({ target: auditChainHeads.userId, set: { userId: sql`excluded.user_id` } })
    .returning();
  return rows[0]!;
}

export async function getChainHead(db: Db, userId: string): Promise<AuditHeadRow | null> {
  const rows = await db.select().from(auditChainHeads).where(eq(auditChainHeads.userId, userId)).limit(1);
  return rows[0] ?? null;
}

export async function updateChainHead(tx: Db, userId: string, patch: Partial<Omit<AuditHeadRow, 'userId'>>): Promise<void> {
  await tx.update(auditChainHeads).set(patch).where(eq(auditChainHeads.userId, userId));
}

/** The entries and the head they move to, in one statement (under the head's lock, lockChainHead). */
export async function insertAuditEntriesAndMoveHead(
  tx: Db,
  userId: string,
  rows: NewAuditEntry[],
  head: { lastSeq: number; lastHmac: string; lastAt: Date },
): Promise<void> {
  const insert = tx.insert(auditEntries).values(rows);
  await tx.execute(sql`
    with inserted as (${insert.getSQL()} returning 1)
    update audit_chain_heads set last_seq = ${head.lastSeq}, last_hmac = ${head.lastHmac}, last_at = ${head.lastAt.toISOString()}
    where user_id = ${userId} and (select count(*) from inserted) = ${rows.length}`);
}

/** Which of these tool calls already have their entry (checked under the chain-head lock). */
export async function auditedToolCalls(tx: Db, userId: string, toolCallIds: string[]): Promise<Set<string>> {
  if (!toolCallIds.length) return new Set();
  const rows = await tx
    .select({ id: auditEntries.toolCallId })
    .from(auditEntries)
    .where(and(eq(auditEntries.userId, userId), inArray(auditEntries.toolCallId, toolCallIds)));
  return new Set(rows.map((r) => r.id!));
}

/** One page of a user's chain in order, from `afterSeq` on (the verifier and the export walk it). */
export async function listChainPage(db: Db, userId: string, afterSeq: number, limit: number) {
  const rows = await db
    .select()
    .from(auditEntries)
    .where(and(eq(auditEntries.userId, userId), gt(auditEntries.seq, afterSeq)))
    .orderBy(asc(auditEntries.seq))
    .limit(limit);
  return rows;
}

export interface ActivityFilter {
  conversationId?: string;
  serverId?: string;
  tool?: string;
  outcome?: AuditOutcome;
  toolCallId?: string;
  from?: Date;
  to?: Date;
  /** Entries older than this seq (the cursor: newest first). */
  beforeSeq?: number;
}

/** A user's entries, newest first, filtered; only ever theirs. */
export async function listActivity(db: Db, userId: string, f: ActivityFilter, limit: number) {
  const where: SQL[] = [eq(auditEntries.userId, userId)];
  if (f.conversationId) where.push(eq(auditEntries.conversationId, f.conversationId));
  if (f.serverId) where.push(eq(auditEntries.serverId, f.serverId));
  if (f.tool) where.push(eq(auditEntries.tool, f.tool));
  if (f.outcome) where.push(eq(auditEntries.outcome, f.outcome));
  if (f.toolCallId) where.push(eq(auditEntries.toolCallId, f.toolCallId));
  if (f.from) where.push(gte(auditEntries.at, f.from));
  if (f.to) where.push(lte(auditEntries.at, f.to));
  if (f.beforeSeq !== undefined) where.push(lt(auditEntries.seq, f.beforeSeq));
  const rows = await db
    .select()
    .from(auditEntries)
    .where(and(...where))
    .orderBy(desc(auditEntries.seq))
    .limit(limit);
  return rows.map(parseAuditRow);
}

/** Users with entries older than `cutoff` (retention). */
export async function usersWithEntriesBefore(db: Db, cutoff: Date): Promise<string[]> {
  const rows = await db.selectDistinct({ userId: auditEntries.userId }).from(auditEntries).where(lt(auditEntries.at, cutoff));
  return rows.map((r) => r.userId);
}

/** The newest entry of a user older than `cutoff`: everything up to it may be pruned. */
export async function lastEntryBefore(tx: Db, userId: string, cutoff: Date): Promise<{ seq: number; hmac: string } | null> {
  const top = await tx
    .select({ seq: max(auditEntries.seq) })
    .from(auditEntries)
    .where(and(eq(auditEntries.userId, userId), lt(auditEntries.at, cutoff)));
  const seq = top[0]?.seq;
  if (seq === null || seq === undefined) return null;
  const rows = await tx
    .select({ seq: auditEntries.seq, hmac: auditEntries.hmac })
    .from(auditEntries)
    .where(and(eq(auditEntries.userId, userId), eq(auditEntries.seq, Number(seq))));
  return rows[0] ?? null;
}

export async function deleteEntriesThrough(tx: Db, userId: string, seq: number): Promise<number> {
  const rows = await tx
    .delete(auditEntries)
    .where(and(eq(auditEntries.userId, userId), lte(auditEntries.seq, seq)))
    .returning({ id: auditEntries.id });
  return rows.length;
}

/** Every user that has a chain (the CLI verifies them all). */
export async function listChainUsers(db: Db): Promise<string[]> {
  const rows = await db.select({ userId: auditChainHeads.userId }).from(auditChainHeads).orderBy(asc(auditChainHeads.userId));
  return rows.map((r) => r.userId);
}

/** Conversation titles by id, for the copies an entry keeps (a deleted conversation is simply absent). */
export async function conversationTitles(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: conversations.id, title: conversations.title })
    .from(conversations)
    .where(inArray(conversations.id, ids));
  return new Map(rows.map((r) => [r.id, r.title]));
}

/** The input of one tool_use block exactly as the model wrote it (the call row holds the edited input after an edit). */
export async function proposedToolInput(db: Db, runId: string, toolUseId: string): Promise<unknown> {
  const result = await db.execute(sql`
    select b->'input' as input
    from messages m, jsonb_array_elements(m.content) b
    where m.run_id = ${runId} and m.role = 'assistant' and b->>'type' = 'tool_use' and b->>'id' = ${toolUseId}
    limit 1`);
  return rowsOf<{ input: unknown }>(result)[0]?.input ?? null;
}

/**
 * The conversations and servers a user's log mentions, with the newest name each had there (the
 * Activity filters): deleted ones included, since their entries are kept.
 */
export async function activityNames(db: Db, userId: string): Promise<{ conversations: Named[]; servers: Named[] }> {
  const conversations = await db.execute(sql`
    select distinct on (conversation_id) conversation_id as id, coalesce(content->'conversation'->>'title', '') as name
    from audit_entries where user_id = ${userId} and conversation_id is not null
    order by conversation_id, seq desc`);
  const servers = await db.execute(sql`
    select distinct on (server_id) server_id as id, coalesce(content->'server'->>'name', server_id) as name
    from audit_entries where user_id = ${userId} and server_id is not null
    order by server_id, seq desc`);
  const byName = (a: Named, b: Named) => a.name.localeCompare(b.name);
  return { conversations: rowsOf<Named>(conversations).sort(byName), servers: rowsOf<Named>(servers).sort(byName) };
}

export interface Named {
  id: string;
  name: string;
}

/** Display names of a user's own servers by id (a grant entry copies its server's name). */
export async function serverNamesOf(db: Db, userId: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: mcpServers.id, name: mcpServers.name })
    .from(mcpServers)
    .where(and(eq(mcpServers.userId, userId), inArray(sql`${mcpServers.id}::text`, ids)));
  return new Map(rows.map((r) => [r.id, r.name]));
}
