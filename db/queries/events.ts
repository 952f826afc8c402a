import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { events } from '../schema';
import { rowsOf } from './rate-limits';

export type EventRow = typeof events.$inferSelect;

/**
 * How the events of one statement are announced to every instance: NOTIFY payload tails for one
 * channel. Each becomes `{"b":<seq before the first event>,` + tail, so a receiver numbers the
 * events (`b` + their ordinal) without the writer knowing their seqs in advance. Sent by the
 * same statement that stores the events, so they go out when its transaction commits, never
 * before and never without it.
 */
export interface EventNotice {
  channel: string;
  tails: readonly string[];
}

/**
 * Appends events with the next seqs of their conversation, numbered in the order given, in one
 * statement: allocation and insert together keep the conversation row locked until commit, so
 * seqs become visible in order and a reader that saw seq N never later finds a smaller one
 * appear. `notice`: the NOTIFYs that announce them, in the same statement. `runStart`: the first
 * event opens its run, and the run's `start_seq` (where a client replays the turn from) is set
 * to it in the same statement too.
 */
export async function appendEvents(
  db: Db,
  conversationId: string,
  runId: string | null,
  list: readonly { type: string; data: Record<string, unknown> }[],
  opts: { notice?: EventNotice; runStart?: boolean } = {},
): Promise<EventRow[]> {
  if (list.length === 0) return [];
  const items = JSON.stringify(list.map((x) => ({ type: x.type, data: x.data })));
  const tails = JSON.stringify(opts.notice?.tails ?? []);
  const result = await db.execute(sql`
    with s as (
      update conversations set event_seq = event_seq + ${list.length} where id = ${conversationId} returning event_seq
    ),
    e as (
      insert into events (conversation_id, seq, run_id, type, data)
      select ${conversationId}, s.event_seq - ${list.length} + e.ord, ${runId}, e.value->>'type', e.value->'data'
      from s, jsonb_array_elements(${items}::jsonb) with ordinality as e(value, ord)
      returning seq, created_at
    ),
    n as (
      select pg_notify(${opts.notice?.channel ?? ''}, '{"b":' || (s.event_seq - ${list.length}) || ',' || t.tail)
      from s, jsonb_array_elements_text(${tails}::jsonb) with ordinality as t(tail, ord)
      order by t.ord
    ),
    r as (
      update runs set start_seq = (select min(seq) from e) where ${opts.runStart ? sql`id = ${runId}` : sql`false`}
    )
    select seq, created_at, (select count(*) from n) as notified from e`);
  const rows = rowsOf<{ seq: string | number; created_at: string | Date }>(result)
    .map((r) => ({ seq: Number(r.seq), createdAt: new Date(r.created_at) }))
    .sort((a, b) => a.seq - b.seq);
  if (rows.length !== list.length) throw new Error(`conversation ${conversationId} does not exist`);
  return rows.map((r, i) => ({ conversationId, seq: r.seq, runId, type: list[i]!.type, data: list[i]!.data, createdAt: r.createdAt }));
}

/** One event, stored without announcing it (tests and benchmarks seed logs with it). */
export async function appendEvent(
  db: Db,
  input: { conversationId: string; runId: string | null; type: string; data: Record<string, unknown> },
): Promise<EventRow> {
  const [row] = await appendEvents(db, input.conversationId, input.runId, [{ type: input.type, data: input.data }]);
  return row!;
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
