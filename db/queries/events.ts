import { and, asc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';
import { events } from '../schema';
import type { StoredMessageContent, StoredMessageOrigin } from '../stored-json';
import { FOLLOWS_ACTIVE_LEAF, type MessageRow } from './messages';
import { utcDay } from './model-usage';
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

/** A message written by the same statement as the events (appendToLog). */
export interface LoggedMessage {
  id: string;
  role: 'user' | 'assistant';
  content: StoredMessageContent;
  runId: string | null;
  stopReason?: string | null;
  origin?: StoredMessageOrigin | null;
}

export interface AppendOptions {
  /** The NOTIFYs that announce the events, sent by the same statement; none without it. */
  notice?: EventNotice;
  /** The first event opens its run: the run's `start_seq` is set to it. */
  runStart?: boolean;
  /**
   * A compare-and-swap (an `UPDATE … RETURNING`, e.g. of the run or a tool call) that must change a
   * row, or nothing of the statement is written: the caller learns it lost the swap (null).
   */
  guard?: SQL;
  /** A message appended before the events, numbered from the same conversation row. */
  message?: LoggedMessage;
  /** Model tokens to add to the user's count for today (UTC). */
  modelTokens?: { userId: string; tokens: number; now?: Date };
}

export interface Appended {
  events: EventRow[];
  message: MessageRow | null;
  /** The guard's first returned row, as JSON (its column names as stored); null without a guard. */
  guarded: Record<string, unknown> | null;
  /** The conversation's title as the statement found it (an audit entry names it). */
  conversationTitle: string;
}

/**
 * Appends events with the next seqs of their conversation, numbered in the order given, in one
 * statement: allocation and insert together keep the conversation row locked until commit, so
 * seqs become visible in order and a reader that saw seq N never later finds a smaller one
 * appear. The same statement can carry what belongs with the events (a step's writes are one
 * statement): the NOTIFYs that announce them (delivered when the transaction commits, never
 * without it), the swap that makes them true (`guard`), a message, the run's `start_seq`, and the
 * model tokens. Returns null when the guard changed nothing (and so nothing was written).
 */
export async function appendToLog(
  db: Db,
  conversationId: string,
  runId: string | null,
  list: readonly { type: string; data: Record<string, unknown> }[],
  opts: AppendOptions = {},
): Promise<Appended | null> {
  const items = JSON.stringify(list.map((x) => ({ type: x.type, data: x.data })));
  // Without a notice (another bus announces the events after commit) the statement names no pg_notify at all.
  const notice = opts.notice?.tails.length
    ? sql`n as (
      select pg_notify(${opts.notice.channel}, '{"b":' || (s.event_seq - ${list.length}) || ',' || t.tail)
      from s, jsonb_array_elements_text(${JSON.stringify(opts.notice.tails)}::jsonb) with ordinality as t(tail, ord)
      order by t.ord
    ),`
    : sql``;
  const m = opts.message;
  const tokens = opts.modelTokens && opts.modelTokens.tokens > 0 ? opts.modelTokens : null;
  const result = await db.execute(sql`
    with g as (${opts.guard ?? sql`select 1 as ok`}),
    s as (
      update conversations set event_seq = event_seq + ${list.length}
        ${m ? sql`, message_seq = message_seq + 1, updated_at = now(), active_leaf_id = ${m.id}::uuid` : sql``}
      where id = ${conversationId} and exists (select 1 from g)
      returning event_seq, message_seq, title
    ),
    m as (
      insert into messages (id, conversation_id, seq, role, content, run_id, stop_reason, origin, parent_id)
      select ${m?.id ?? null}::uuid, ${conversationId}, s.message_seq, ${m?.role ?? null}, ${m ? JSON.stringify(m.content) : null}::jsonb,
        ${m?.runId ?? null}::uuid, ${m?.stopReason ?? null}, ${m?.origin ? JSON.stringify(m.origin) : null}::jsonb,
        ${FOLLOWS_ACTIVE_LEAF(conversationId)}
      from s where ${m ? sql`true` : sql`false`}
      returning seq, created_at, parent_id
    ),
    e as (
      insert into events (conversation_id, seq, run_id, type, data)
      select ${conversationId}, s.event_seq - ${list.length} + e.ord, ${runId}, e.value->>'type', e.value->'data'
      from s, jsonb_array_elements(${items}::jsonb) with ordinality as e(value, ord)
      returning seq, created_at
    ),
    ${notice}
    r as (
      update runs set start_seq = (select min(seq) from e) where ${opts.runStart ? sql`id = ${runId}` : sql`false`}
    ),
    u as (
      insert into model_usage (user_id, day, tokens)
      select ${tokens?.userId ?? null}::uuid, ${utcDay(tokens?.now ?? new Date())}, ${tokens?.tokens ?? 0}
      from s where ${tokens ? sql`true` : sql`false`}
      on conflict (user_id, day) do update set tokens = model_usage.tokens + excluded.tokens
    )
    select s.title, (select json_agg(json_build_object('seq', seq, 'created_at', created_at)) from e) as events,
      (select json_build_object('seq', seq, 'created_at', created_at, 'parent_id', parent_id) from m) as message,
      (select row_to_json(g) from g limit 1) as guarded
      ${opts.notice?.tails.length ? sql`, (select count(*) from n) as notified` : sql``}
    from s`);
  type Stamp = { seq: string | number; created_at: string };
  const row = rowsOf<{
    title: string;
    events: Stamp[] | null;
    message: (Stamp & { parent_id: string | null }) | null;
    guarded: Record<string, unknown> | null;
  }>(result)[0];
  if (!row) {
    if (opts.guard) return null;
    throw new Error(`conversation ${conversationId} does not exist`);
  }
  const stamps = (row.events ?? []).map((r) => ({ seq: Number(r.seq), createdAt: new Date(r.created_at) })).sort((a, b) => a.seq - b.seq);
  const events = stamps.map((r, i) => ({
    conversationId,
    seq: r.seq,
    runId,
    type: list[i]!.type,
    data: list[i]!.data,
    createdAt: r.createdAt,
  }));
  const message: MessageRow | null =
    m && row.message
      ? {
          id: m.id,
          conversationId,
          seq: Number(row.message.seq),
          role: m.role,
          content: m.content,
          runId: m.runId,
          stopReason: m.stopReason ?? null,
          origin: m.origin ?? null,
          parentId: row.message.parent_id,
          createdAt: new Date(row.message.created_at),
        }
      : null;
  return { events, message, guarded: opts.guard ? row.guarded : null, conversationTitle: row.title };
}

/** Events alone (see appendToLog), in one statement; returns them in the order given. */
export async function appendEvents(
  db: Db,
  conversationId: string,
  runId: string | null,
  list: readonly { type: string; data: Record<string, unknown> }[],
  opts: { notice?: EventNotice; runStart?: boolean } = {},
): Promise<EventRow[]> {
  if (list.length === 0) return [];
  return (await appendToLog(db, conversationId, runId, list, opts))!.events;
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
