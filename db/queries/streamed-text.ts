import { sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { rowsOf } from './rate-limits';

/**
 * Messages of a run whose text was streamed (stored `message.delta` events) but that were never
 * stored, nor discarded yet: what an instance that stopped mid-step left behind. A message that
 * ended with its partial text stored (a failure, a Stop) is stored, so it is not among them.
 */
export async function listAbandonedStreams(db: Db, conversationId: string, runId: string): Promise<string[]> {
  const result = await db.execute(sql`
    select distinct e.data->>'messageId' as id
    from events e
    where e.conversation_id = ${conversationId} and e.run_id = ${runId} and e.type = 'message.delta'
      and not exists (select 1 from messages m where m.conversation_id = ${conversationId} and m.id::text = e.data->>'messageId')
      and not exists (
        select 1 from events d
        where d.conversation_id = ${conversationId} and d.type = 'message.discarded' and d.data->>'messageId' = e.data->>'messageId'
      )`);
  return rowsOf<{ id: string }>(result).map((r) => r.id);
}

/** The messages discarded after `afterSeq` in a conversation's log: a replay from there leaves their text out. */
export async function listDiscardedMessageIds(db: Db, conversationId: string, afterSeq: number): Promise<Set<string>> {
  const result = await db.execute(sql`
    select data->>'messageId' as id from events
    where conversation_id = ${conversationId} and seq > ${afterSeq} and type = 'message.discarded'`);
  return new Set(rowsOf<{ id: string }>(result).map((r) => r.id));
}
