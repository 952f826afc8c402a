import { and, asc, desc, eq, lte, sql } from 'drizzle-orm';

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
 * Appends a message with the next seq of its conversation. The seq comes from the conversation
 * row in the same statement, so concurrent appends are numbered in commit order.
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
  const result = await db.execute(sql`
    with s as (
      update conversations set message_seq = message_seq + 1, updated_at = now()
      where id = ${input.conversationId} returning message_seq
    )
    insert into messages (id, conversation_id, seq, role, content, run_id, stop_reason, origin)
    select coalesce(${input.id ?? null}::uuid, gen_random_uuid()), ${input.conversationId}, s.message_seq, ${input.role},
      ${JSON.stringify(input.content)}::jsonb, ${input.runId ?? null}::uuid, ${input.stopReason ?? null},
      ${input.origin ? JSON.stringify(input.origin) : null}::jsonb
    from s
    returning id, seq, created_at`);
  const row = rowsOf<{ id: string; seq: number; created_at: string | Date }>(result)[0];
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
    createdAt: new Date(row.created_at),
  };
}

export async function listMessages(db: Db, conversationId: string): Promise<MessageRow[]> {
  const rows = await db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(asc(messages.seq));
  return rows.map(parseMessageRow);
}

/** Messages 1..seq of a conversation (a share link's snapshot). */
export async function listMessagesThrough(db: Db, conversationId: string, seq: number): Promise<MessageRow[]> {
  const rows = await db
    .select()
    .from(messages)
    .where(and(eq(messages.conversationId, conversationId), lte(messages.seq, seq)))
    .orderBy(asc(messages.seq));
  return rows.map(parseMessageRow);
}

export async function getLastMessage(db: Db, conversationId: string): Promise<MessageRow | null> {
  const rows = await db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(desc(messages.seq)).limit(1);
  return rows[0] ? parseMessageRow(rows[0]) : null;
}
