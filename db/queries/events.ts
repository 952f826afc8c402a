import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { events } from '../schema';
import { rowsOf } from './rate-limits';

export type EventRow = typeof events.$inferSelect;

/**
 * Appends one event with the next seq of its conversation. Allocation and insert are one
 * statement: the conversation row stays locked until it commits, so seqs become visible in
 * order and a reader that saw seq N never later finds a smaller one appear.
 */
export async function appendEvent(
  db: Db,
  input: { conversationId: string; runId: string | null; type: string; data: Record<string, unknown> },
): Promise<EventRow> {
  const result = await db.execute(sql`
    with s as (
      update conversations set event_seq = event_seq + 1 where id = ${input.conversationId} returning event_seq
    )
    insert into events (conversation_id, seq, run_id, type, data)
    select ${input.conversationId}, s.event_seq, ${input.runId}, ${input.type}, ${JSON.stringify(input.data)}::jsonb
    from s
    returning seq, created_at`);
  const row = rowsOf<{ seq: string | number; created_at: string | Date }>(result)[0];
  if (!row) throw new Error(`conversation ${input.conversationId} does not exist`);
  return {
    conversationId: input.conversationId,
    seq: Number(row.seq),
    runId: input.runId,
    type: input.type,
    data: input.data,
    createdAt: new Date(row.created_at),
  };
}

export async function listEventsAfter(db: Db, conversationId: string, afterSeq: number, limit = 1000): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(and(eq(events.conversationId, conversationId), gt(events.seq, afterSeq)))
    .orderBy(asc(events.seq))
    .limit(limit);
}

/** Whether a run logged one of `types` after `afterSeq`: a pause is only current if none followed it. */
export async function hasRunEventAfter(
  db: Db,
  conversationId: string,
  runId: string,
  afterSeq: number,
  types: readonly string[],
): Promise<boolean> {
  const rows = await db
    .select({ seq: events.seq })
    .from(events)
    .where(
      and(eq(events.conversationId, conversationId), gt(events.seq, afterSeq), eq(events.runId, runId), inArray(events.type, [...types])),
    )
    .limit(1);
  return rows.length > 0;
}
