import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { events } from '../schema';
import { rowsOf } from './rate-limits';

export type EventRow = typeof events.$inferSelect;

/**
 * Appends one event with the next seq of its conversation. Allocation and insert are one
 * statement: the conversation row stays locked until it commits, so seqs become visible in
 * order and a reader that saw seq N never later finds a smaller one appear. `runStart`: the
 * event opens its run, and the run's `start_seq` (where a client replays the turn from) is set to
 * it in the same statement.
 */
export async function appendEvent(
  db: Db,
  input: { conversationId: string; runId: string | null; type: string; data: Record<string, unknown> },
  opts: { runStart?: boolean } = {},
): Promise<EventRow> {
  const allocate = sql`s as (
      update conversations set event_seq = event_seq + 1 where id = ${input.conversationId} returning event_seq
    )`;
  const insert = sql`insert into events (conversation_id, seq, run_id, type, data)
    select ${input.conversationId}, s.event_seq, ${input.runId}, ${input.type}, ${JSON.stringify(input.data)}::jsonb
    from s
    returning seq, created_at`;
  const result = await db.execute(
    opts.runStart && input.runId
      ? sql`with ${allocate}, e as (${insert}), r as (update runs set start_seq = (select seq from e) where id = ${input.runId})
          select seq, created_at from e`
      : sql`with ${allocate} ${insert}`,
  );
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

/**
 * Appends several events of one run in one statement, numbered in the order given (one
 * allocation of as many seqs, as appendEvent does for one). Returns them in that order.
 */
export async function appendEvents(
  db: Db,
  conversationId: string,
  runId: string | null,
  list: readonly { type: string; data: Record<string, unknown> }[],
): Promise<EventRow[]> {
  if (list.length === 0) return [];
  if (list.length === 1) return [await appendEvent(db, { conversationId, runId, type: list[0]!.type, data: list[0]!.data })];
  const items = JSON.stringify(list.map((x) => ({ type: x.type, data: x.data })));
  const result = await db.execute(sql`
    with s as (
      update conversations set event_seq = event_seq + ${list.length} where id = ${conversationId} returning event_seq
    )
    insert into events (conversation_id, seq, run_id, type, data)
    select ${conversationId}, s.event_seq - ${list.length} + e.ord, ${runId}, e.value->>'type', e.value->'data'
    from s, jsonb_array_elements(${items}::jsonb) with ordinality as e(value, ord)
    returning seq, created_at`);
  const rows = rowsOf<{ seq: string | number; created_at: string | Date }>(result)
    .map((r) => ({ seq: Number(r.seq), createdAt: new Date(r.created_at) }))
    .sort((a, b) => a.seq - b.seq);
  if (rows.length !== list.length) throw new Error(`conversation ${conversationId} does not exist`);
  return rows.map((r, i) => ({ conversationId, seq: r.seq, runId, type: list[i]!.type, data: list[i]!.data, createdAt: r.createdAt }));
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
