import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray, lte, sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';
import { conversations, messages, runs, shareLinks } from '../schema';
import {
  parseStored,
  storedRunError,
  type StoredForkOrigin,
  type StoredMessageContent,
  type StoredRunError,
  type StoredTaint,
} from '../stored-json';
import { ACTIVE_RUN_STATUSES, type RunStatus } from '../vocabulary';
import { listPath, type MessageRow } from './messages';
import { rowsOf } from './rate-limits';
import { callsAskedOn, insertToolCalls, listToolCallsOfRuns, type NewToolCall, type ToolCallRow } from './tool-calls';

export type ShareLinkRow = typeof shareLinks.$inferSelect;

const ACTIVE = sql.raw(ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(', '));

/**
 * The messages (id, seq) on the path from the root to `leaf`, a message id of the conversation
 * (SQL; may refer to the outer query's columns). A subquery of its own: `from ${pathOf(...)} p`.
 */
const pathOf = (conversationId: SQL, leaf: SQL) => sql`(with recursive path as (
    select m.id, m.parent_id, m.seq from messages m where m.conversation_id = ${conversationId} and m.id = ${leaf}
    union all
    select q.id, q.parent_id, q.seq from messages q join path on q.id = path.parent_id
  ) select id, seq from path)`;

/**
 * The last message of the last finished turn on the conversation's active branch: the last
 * message of the active path that no active run wrote (a turn in progress is always at the end
 * of the active path: the branch cannot change while it runs), 0 when there is none. One
 * statement, so a turn starting meanwhile is either wholly in it or wholly out of it.
 */
const finishedThrough = (conversationId: SQL) => sql`coalesce(
  (select max(p.seq) from ${pathOf(conversationId, sql`(select c2.active_leaf_id from conversations c2 where c2.id = ${conversationId})`)} p
   join messages m on m.id = p.id left join runs r on r.id = m.run_id
   where r.status is null or r.status not in (${ACTIVE})), 0)`;

/** The message a snapshot ends with: the one numbered `seq` (its path is the snapshot). */
const messageAt = (conversationId: SQL, seq: SQL) =>
  sql`(select ms.id from messages ms where ms.conversation_id = ${conversationId} and ms.seq = ${seq})`;

/** A message a reader sees: the model's, or the person's with some text (not one holding only tool results). */
const VISIBLE = sql`(m.role = 'assistant' or jsonb_path_exists(m.content, '$[*] ? (@.type == "text")'))`;

export interface SnapshotPoint {
  title: string;
  /**
   * The last message of the snapshot: the snapshot is the path from the root to the message
   * numbered `seq` (the branch active when it was taken), its finished turns; 0 when no turn has
   * finished yet.
   */
  seq: number;
}

/** Where a snapshot of the user's conversation would end now; null when it is not theirs. */
export async function currentSnapshotPoint(db: Db, userId: string, conversationId: string): Promise<SnapshotPoint | null> {
  const result = await db.execute(sql`
    select c.title, ${finishedThrough(sql`c.id`)} as seq
    from conversations c where c.id = ${conversationId} and c.user_id = ${userId}`);
  const row = rowsOf<{ title: string; seq: number }>(result)[0];
  return row ? { title: row.title, seq: Number(row.seq) } : null;
}

export async function insertShareLink(
  db: Db,
  input: Pick<
    ShareLinkRow,
    | 'userId'
    | 'conversationId'
    | 'tokenHash'
    | 'includeToolDetails'
    | 'audience'
    | 'expiresAt'
    | 'snapshotSeq'
    | 'snapshotTitle'
    | 'snapshotAt'
  > & { includeFiles?: boolean },
): Promise<ShareLinkRow> {
  const rows = await db.insert(shareLinks).values(input).returning();
  return rows[0]!;
}

/** A link with what its owner's list shows beside it. */
export interface ShareLinkListing {
  link: ShareLinkRow;
  conversationTitle: string;
  /** Messages a reader sees in the snapshot. */
  messageCount: number;
  /** Messages a reader would see after the snapshot, up to the last finished turn. */
  newerMessages: number;
}

/** The user's links, newest first; of one conversation when `conversationId` is given. */
export async function listShareLinks(db: Db, userId: string, conversationId?: string): Promise<ShareLinkListing[]> {
  const linkConversation = sql`${shareLinks.conversationId}`;
  const snapshotPath = pathOf(linkConversation, messageAt(linkConversation, sql`${shareLinks.snapshotSeq}`));
  const activePathOf = pathOf(linkConversation, sql`${conversations.activeLeafId}`);
  const rows = await db
    .select({
      link: shareLinks,
      conversationTitle: conversations.title,
      messageCount: sql<number>`(select count(*)::int from ${snapshotPath} p join messages m on m.id = p.id where ${VISIBLE})`,
      // What moving the snapshot would show that it does not: the active branch's finished
      // messages that are not on the snapshot's path (after it, or on another branch).
      newerMessages: sql<number>`(select count(*)::int from ${activePathOf} p join messages m on m.id = p.id
        where p.seq <= ${finishedThrough(linkConversation)} and ${VISIBLE}
          and p.id not in (select id from ${snapshotPath} sp))`,
    })
    .from(shareLinks)
    .innerJoin(conversations, eq(conversations.id, shareLinks.conversationId))
    .where(
      conversationId ? and(eq(shareLinks.userId, userId), eq(shareLinks.conversationId, conversationId)) : eq(shareLinks.userId, userId),
    )
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id));
  return rows.map((r) => ({ ...r, messageCount: Number(r.messageCount), newerMessages: Number(r.newerMessages) }));
}

/** Ownership is part of the lookup: another user's link reads as not found. */
export async function getShareLinkForUser(db: Db, userId: string, id: string): Promise<ShareLinkRow | null> {
  const rows = await db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.id, id), eq(shareLinks.userId, userId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function getShareLinkByTokenHash(db: Db, tokenHash: string): Promise<ShareLinkRow | null> {
  const rows = await db.select().from(shareLinks).where(eq(shareLinks.tokenHash, tokenHash)).limit(1);
  return rows[0] ?? null;
}

export async function moveShareSnapshot(db: Db, userId: string, id: string, to: SnapshotPoint, at: Date): Promise<ShareLinkRow | null> {
  const rows = await db
    .update(shareLinks)
    .set({ snapshotSeq: to.seq, snapshotTitle: to.title, snapshotAt: at, snapshotMovedAt: at })
    .where(and(eq(shareLinks.id, id), eq(shareLinks.userId, userId)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteShareLink(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(shareLinks)
    .where(and(eq(shareLinks.id, id), eq(shareLinks.userId, userId)))
    .returning({ id: shareLinks.id });
  return rows.length > 0;
}

/** Deletes every link (of any user) that expired at or before `cutoff`; returns how many. */
export async function deleteShareLinksExpiredBy(db: Db, cutoff: Date): Promise<number> {
  const rows = await db.delete(shareLinks).where(lte(shareLinks.expiresAt, cutoff)).returning({ id: shareLinks.id });
  return rows.length;
}

/** What a snapshot holds: the path to the message numbered seq, and the tool calls of the turns those messages belong to. */
export interface SnapshotRows {
  messages: MessageRow[];
  toolCalls: ToolCallRow[];
  /** Those turns (a turn in a snapshot has always ended), in the order they started. */
  runs: EndedRun[];
}

async function messageIdAt(db: Db, conversationId: string, seq: number): Promise<string | null> {
  const rows = await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), eq(messages.seq, seq)))
    .limit(1);
  return rows[0]?.id ?? null;
}

/** The snapshot's messages alone: the path to the message numbered seq (none for seq 0). */
export async function readSnapshotPath(db: Db, conversationId: string, seq: number): Promise<MessageRow[]> {
  const leaf = seq > 0 ? await messageIdAt(db, conversationId, seq) : null;
  return leaf ? listPath(db, conversationId, leaf) : [];
}

export async function readSnapshot(db: Db, conversationId: string, seq: number): Promise<SnapshotRows> {
  const snapshot = await readSnapshotPath(db, conversationId, seq);
  const runIds = [...new Set(snapshot.flatMap((m) => (m.runId ? [m.runId] : [])))];
  const [calls, runRows] = await Promise.all([
    listToolCallsOfRuns(db, conversationId, runIds),
    runIds.length
      ? db
          .select({ id: runs.id, status: runs.status, stopReason: runs.stopReason, error: runs.error, model: runs.model })
          .from(runs)
          .where(and(eq(runs.conversationId, conversationId), inArray(runs.id, runIds)))
          .orderBy(asc(runs.createdAt))
      : Promise.resolve([]),
  ]);
  return {
    messages: snapshot,
    // A run's later steps may lie on another branch (an answer regenerated from after its tool results).
    toolCalls: callsAskedOn(snapshot, calls),
    runs: runRows.map((r) => ({ ...r, error: parseStored(storedRunError, r.error, 'runs.error', r.id) })),
  };
}

/** One ended turn of a snapshot (and of its fork). */
export interface EndedRun {
  id: string;
  status: RunStatus;
  stopReason: string | null;
  error: StoredRunError | null;
  model: string;
}

/**
 * Writes a forked conversation in one go: the conversation (with where it came from and, when the
 * original was tainted, its taint), its ended turns, its messages numbered as in the snapshot, and
 * the copies of their tool calls. Nothing of it runs. Must be called inside a transaction.
 */
export async function insertForkedConversation(
  tx: Db,
  input: {
    userId: string;
    model: string;
    title: string;
    forkedFrom: StoredForkOrigin;
    tainted: StoredTaint | null;
    runs: EndedRun[];
    messages: {
      seq: number;
      role: 'user' | 'assistant';
      content: StoredMessageContent;
      runId: string | null;
      stopReason: string | null;
      createdAt: Date;
    }[];
    toolCalls: Omit<NewToolCall, 'conversationId' | 'userId'>[];
  },
): Promise<string> {
  const lastSeq = input.messages.at(-1)?.seq ?? 0;
  // The snapshot is one path: each copied message follows the one before it, the last is the leaf.
  const ids = input.messages.map(() => randomUUID());
  const [conversation] = await tx
    .insert(conversations)
    .values({
      userId: input.userId,
      model: input.model,
      title: input.title,
      forkedFrom: input.forkedFrom,
      tainted: input.tainted,
      messageSeq: lastSeq,
      activeLeafId: ids.at(-1) ?? null,
    })
    .returning({ id: conversations.id });
  const conversationId = conversation!.id;
  if (input.runs.length) {
    const now = new Date();
    await tx.insert(runs).values(input.runs.map((r) => ({ ...r, conversationId, userId: input.userId, leaseOwner: null, endedAt: now })));
  }
  if (input.messages.length) {
    await tx.insert(messages).values(input.messages.map((m, i) => ({ ...m, id: ids[i], parentId: ids[i - 1] ?? null, conversationId })));
  }
  await insertToolCalls(
    tx,
    input.toolCalls.map((c) => ({ ...c, conversationId, userId: input.userId })),
  );
  return conversationId;
}
