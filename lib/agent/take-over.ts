import type { RunRow } from '@/db/queries/runs';
import { listAbandonedStreams } from '@/db/queries/streamed-text';
import { errorSummary } from '@/lib/log-safe';

import type { EngineDeps } from './deps';
import type { RunEvent } from './events';

/**
 * Before an instance that took a run over redoes the step the previous one was streaming: the
 * text that instance streamed (live, and stored coalesced) belongs to a message that will never
 * be stored, so each such message is marked `message.discarded` — one statement, before any text
 * of the redone step. A page drops that text instead of showing it followed by the new answer,
 * and a replay of the log leaves it out (./sse.ts). Returns the message ids discarded.
 *
 * Never throws: the run must be driven on even if this fails (the page still replaces an
 * unfinished message with the next one of the same run, chat-state.ts).
 */
export async function discardAbandonedText(deps: EngineDeps, run: RunRow): Promise<string[]> {
  try {
    const abandoned = await listAbandonedStreams(deps.db, run.conversationId, run.id);
    if (!abandoned.length) return [];
    const events: RunEvent[] = abandoned.map((messageId) => ({ type: 'message.discarded', data: { messageId, reason: 'taken_over' } }));
    await deps.events.store(deps.db, run.conversationId, run.id, events);
    return abandoned;
  } catch (err) {
    console.error(`[run ${run.id}] could not discard the text of the step being redone:`, errorSummary(err));
    return [];
  }
}
