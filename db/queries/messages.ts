import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';
import { messages } from '../schema';
import {
  parseStored,
  storedMessageContent,
  storedMessageOrigin,
  type StoredMessageContent,
  type StoredMessageOrigin,
} from '../stored-json';
import { rowsOf } from './rate-limits';

export type MessageRow = typeof messages.$inferSelect;

/** The content through its schema: an array of content blocks, as the next request sends it. */
export function parseMessageRow(raw: MessageRow): MessageRow {
  return {
    ...raw,
    content: parseStored(storedMessageContent, raw.content, 'messages.content', raw.id) ?? [],
    origin: parseStored(storedMessageOrigin, raw.origin, 'messages.origin', raw.id),
  };
}

/**
 * The parent of a message appended now: the conversation's active leaf, as the statement's
 * snapshot sees it — before the same statement moves the leaf to the new message. Appends to a
 * conversation come from its one active run, and the leaf moves otherwise only while no turn is
 * active (lib/chat/branches.ts), so the turn's messages form one path.
 */
export const FOLLOWS_ACTIVE_LEAF = (conversationId: string): SQL =>
  sql`(select active_leaf_id from conversations where id = ${conversationId})`;

/**
 * Appends a message with the next seq of its conversation, after its active leaf, and makes it
 * the active leaf. The seq comes from the conversation row in the same statement, so concurrent
 * appends are numbered in commit order.
 */
export async function appendMessage(
  db: Db,
  input: {
    id?: string;
    conversationId: string;
    role: 'user' | 'assistant';
    content: StoredMessageContent;
    runId?: string | null;
    stopReason?: string | null;
    origin?: StoredMessageOrigin | null;
  },
): Promise<MessageRow> {
  const id = input.id ?? randomUUID();
  const result = await db.execute(sql`
    with s as (
      update conversations set message_seq = message_seq + 1, updated_at = now(), active_leaf_id = ${id}::uuid
      where id = ${input.conversationId} returning message_seq
    )
    insert into messages (id, conversation_id, seq, role, content, run_id, stop_reason, origin, parent_id)
    select ${id}::uuid, ${input.conversationId}, s.message_seq, ${input.role},
      ${JSON.stringify(input.content)}::jsonb, ${input.runId ?? null}::uuid, ${input.stopReason ?? null},
      ${input.origin ? JSON.stringify(input.origin) : null}::jsonb, ${FOLLOWS_ACTIVE_LEAF(input.conversationId)}
    from s
    returning id, seq, created_at, parent_id`);
  const row = rowsOf<{ id: string; seq: number; created_at: string | Date; parent_id: string | null }>(result)[0];
  if (!row) throw new Error(`conversation ${input.conversationId} does not exist`);
  // What was written, as read back (no second round trip: the content is the one just sent).
  return {
    id: row.id,
    conversationId: input.conversationId,
    seq: Number(row.seq),
    role: input.role,
    content: input.content,
    runId: input.runId ?? null,
    stopReason: input.stopReason ?? null,
    origin: input.origin ?? null,
    parentId: row.parent_id,
    createdAt: new Date(row.created_at),
  };
}

/** Every message of a conversation, every branch, by seq (the account export, tests). */
export async function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  const rows = await db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(asc(messages.seq));
  return rows.map(parseMessageRow);
}

/**
 * `path`: the ids and seqs from `leaf` up to the root, by following parent_id (recursive CTE; a
 * child's seq is greater than its parent's, so ordering by seq gives the path's order). `leaf` is
 * SQL for one message id of the conversation (or null: an empty path).
 */
export const pathCte = (conversationId: string, leaf: SQL): SQL => sql`path as (
    select m.id, m.parent_id, m.seq from messages m where m.conversation_id = ${conversationId} and m.id = ${leaf}
    union all
    select p.id, p.parent_id, p.seq from messages p join path on p.id = path.parent_id
  )`;

/** A message on a path, with the branches beside it. */
export interface PathMessageRow extends MessageRow {
  /** The message and its siblings (same parent) by seq, when it has any; null when it is the only one. */
  siblingIds: string[] | null;
}

type RawMessage = {
  id: string;
  seq: number | string;
  role: 'user' | 'assistant';
  content: unknown;
  run_id: string | null;
  stop_reason: string | null;
  origin: unknown;
  parent_id: string | null;
  created_at: string | Date;
};

function fromRaw(conversationId: string, r: RawMessage): MessageRow {
  return parseMessageRow({
    id: r.id,
    conversationId,
    seq: Number(r.seq),
    role: r.role,
    content: r.content as MessageRow['content'],
    runId: r.run_id,
    stopReason: r.stop_reason,
    origin: r.origin as MessageRow['origin'],
    parentId: r.parent_id,
    createdAt: new Date(r.created_at),
  });
}

/**
 * The path from the root to `leaf` (default: the conversation's active leaf), in order, each
 * message with its siblings when it has some (what the branch switcher needs): one statement.
 */
export async function listPath(db: Db, conversationId: string, leafId?: string): Promise<PathMessageRow[]> {
  const leaf = leafId ? sql`${leafId}::uuid` : FOLLOWS_ACTIVE_LEAF(conversationId);
  const result = await db.execute(sql`
    with recursive ${pathCte(conversationId, leaf)}
    select m.id, m.seq, m.role, m.content, m.run_id, m.stop_reason, m.origin, m.parent_id, m.created_at,
      (select case when count(*) > 1 then json_agg(s.id order by s.seq) end from messages s
        where s.conversation_id = ${conversationId}
          and (s.parent_id = m.parent_id or (m.parent_id is null and s.parent_id is null))) as sibling_ids
    from path join messages m on m.id = path.id
    order by m.seq`);
  return rowsOf<RawMessage & { sibling_ids: string[] | null }>(result).map((r) => ({
    ...fromRaw(conversationId, r),
    siblingIds: r.sibling_ids,
  }));
}

/** One message of the conversation; null when it has none with this id. */
export async function getMessage(db: Db, conversationId: string, id: string): Promise<MessageRow | null> {
  const rows = await db
    .select()
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), eq(messages.id, id)))
    .limit(1);
  return rows[0] ? parseMessageRow(rows[0]) : null;
}

/** The conversation's active leaf: the last message of the branch on screen (null: no message yet). */
export async function getActiveLeaf(db: Db, conversationId: string): Promise<MessageRow | null> {
  const result = await db.execute(sql`
    select m.id, m.seq, m.role, m.content, m.run_id, m.stop_reason, m.origin, m.parent_id, m.created_at
    from messages m where m.conversation_id = ${conversationId} and m.id = ${FOLLOWS_ACTIVE_LEAF(conversationId)}`);
  const row = rowsOf<RawMessage>(result)[0];
  return row ? fromRaw(conversationId, row) : null;
}

/**
 * The newest leaf beneath a message of the conversation (the message itself when it has no
 * children): the descendant with the greatest seq, which has no children since a child's seq
 * is greater than its parent's. Null when the conversation has no such message.
 */
export async function newestLeafBeneath(db: Db, conversationId: string, id: string): Promise<string | null> {
  const result = await db.execute(sql`
    with recursive below as (
      select m.id, m.seq from messages m where m.conversation_id = ${conversationId} and m.id = ${id}
      union all
      select c.id, c.seq from messages c join below on c.parent_id = below.id where c.conversation_id = ${conversationId}
    )
    select id from below order by seq desc limit 1`);
  return rowsOf<{ id: string }>(result)[0]?.id ?? null;
}

/** How many messages follow this one (its answers or edits of the next question, on any branch). */
export async function countChildren(db: Db, conversationId: string, id: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), eq(messages.parentId, id)));
  return Number(row?.n ?? 0);
}

/** Moves the conversation's active leaf (null: before its first message). */
export async function setActiveLeaf(db: Db, conversationId: string, leafId: string | null): Promise<void> {
  await db.execute(sql`update conversations set active_leaf_id = ${leafId}::uuid where id = ${conversationId}`);
}

/** Whether a run stored any message (a regenerated turn that failed before its first word stored none). */
export async function runWroteMessages(db: Db, conversationId: string, runId: string): Promise<boolean> {
  const rows = await db
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), eq(messages.runId, runId)))
    .limit(1);
  return rows.length > 0;
}
