import { asc, eq, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { historySummaries } from '../schema';
import { FOLLOWS_ACTIVE_LEAF, parseMessageRow, pathCte, type MessageRow } from './messages';
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
  parent_id: string | null;
  created_at: string | Date;
};

/**
 * The history a drive sends, in ONE statement: the active path (root to the conversation's
 * active leaf; during a turn, the turn's own branch, since the leaf cannot move while a turn is
 * active), the newest summary that applies to it, and only the path's messages after the seq
 * that summary covers — what is summarized is never read for the model.
 *
 * A summary applies to a path when the last message it covers (seq = through_seq) is on it:
 * seqs grow along a path, so the path's messages up to that seq are exactly the ones it
 * summarized. A summary written on another branch is ignored here.
 */
export async function readHistory(db: Db, conversationId: string): Promise<StoredHistory> {
  const result = await db.execute(sql`
    with recursive ${pathCte(conversationId, FOLLOWS_ACTIVE_LEAF(conversationId))},
    s as (
      select h.id, h.through_seq, h.text, h.run_id, h.created_at from history_summaries h
      where h.conversation_id = ${conversationId} and h.through_seq in (select seq from path)
      order by h.through_seq desc, h.created_at desc limit 1
    )
    select 'summary' as kind, s.id, s.through_seq as seq, null::text as role, to_jsonb(s.text) as content, s.run_id,
      null::text as stop_reason, null::jsonb as origin, null::uuid as parent_id, s.created_at
    from s
    union all
    select 'message' as kind, m.id, m.seq, m.role, m.content, m.run_id, m.stop_reason, m.origin, m.parent_id, m.created_at
    from path join messages m on m.id = path.id
    where path.seq > coalesce((select through_seq from s), 0)
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
        parentId: r.parent_id,
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
