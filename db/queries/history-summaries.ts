import { asc, eq, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { historySummaries } from '../schema';
import { parseMessageRow, type MessageRow } from './messages';
import { rowsOf } from './rate-limits';

export type HistorySummaryRow = typeof historySummaries.$inferSelect;

/** What a run's steps send as the conversation so far: the newest summary, and the messages after it. */
export interface StoredHistory {
  summary: HistorySummaryRow | null;
  messages: MessageRow[];
}

type HistoryRow = {
  kind: 'summary' | 'message';
  id: string;
  seq: number;
  role: 'user' | 'assistant' | null;
  content: unknown;
  run_id: string | null;
  stop_reason: string | null;
  origin: unknown;
  created_at: string | Date;
};

/**
 * The history a drive sends, in ONE statement: the conversation's newest summary (if any) and
 * only the messages after the seq it covers — what is summarized is never read for the model.
 */
export async function readHistory(db: Db, conversationId: string): Promise<StoredHistory> {
  const result = await db.execute(sql`
    with s as (
      select id, through_seq, text, run_id, created_at from history_summaries
      where conversation_id = ${conversationId}
      order by through_seq desc, created_at desc limit 1
    )
    select 'summary' as kind, s.id, s.through_seq as seq, null::text as role, to_jsonb(s.text) as content, s.run_id,
      null::text as stop_reason, null::jsonb as origin, s.created_at
    from s
    union all
    select 'message' as kind, m.id, m.seq, m.role, m.content, m.run_id, m.stop_reason, m.origin, m.created_at
    from messages m
    where m.conversation_id = ${conversationId} and m.seq > coalesce((select through_seq from s), 0)
    order by kind desc, seq`);
  let summary: HistorySummaryRow | null = null;
  const messages: MessageRow[] = [];
  for (const r of rowsOf<HistoryRow>(result)) {
    const createdAt = new Date(r.created_at);
    if (r.kind === 'summary') {
      summary = { id: r.id, conversationId, throughSeq: Number(r.seq), text: String(r.content), runId: r.run_id, createdAt };
      continue;
    }
    messages.push(
      parseMessageRow({
        id: r.id,
        conversationId,
        seq: Number(r.seq),
        role: r.role ?? 'user',
        content: r.content as MessageRow['content'],
        runId: r.run_id,
        stopReason: r.stop_reason,
        origin: r.origin as MessageRow['origin'],
        createdAt,
      }),
    );
  }
  return { summary, messages };
}

export async function insertHistorySummary(
  db: Db,
  input: { conversationId: string; throughSeq: number; text: string; runId: string | null },
): Promise<HistorySummaryRow> {
  const [row] = await db.insert(historySummaries).values(input).returning();
  return row!;
}

/** Every summary of a conversation, oldest first: where the page marks "earlier messages summarized". */
export async function listHistorySummaries(db: Db, conversationId: string): Promise<HistorySummaryRow[]> {
  return db
    .select()
    .from(historySummaries)
    .where(eq(historySummaries.conversationId, conversationId))
    .orderBy(asc(historySummaries.throughSeq));
}
