import type { Db } from '@/db/connection';
import { appendEvent } from '@/db/queries/events';
import { updateRunIfVersion, type RunPatch, type RunRow } from '@/db/queries/runs';

import type { BusEvent, EventSink, RunEvent } from './events';

export class LeaseLost extends Error {
  constructor(runId: string) {
    super(`run ${runId} is no longer ours`);
  }
}

/**
 * Applies a run change and stores its events in one transaction, compare-and-swapping on the
 * run's version (and lease owner while running). If another instance moved the run, nothing is
 * written and LeaseLost is thrown. Events are broadcast only after the commit.
 */
export async function transitionRun(
  db: Db,
  events: EventSink,
  run: RunRow,
  patch: RunPatch,
  opts: {
    owner?: string;
    events?: RunEvent[];
    also?: (tx: Db) => Promise<void>;
  } = {},
): Promise<RunRow> {
  const stored: BusEvent[] = [];
  const next = await db.transaction(async (tx) => {
    const updated = await updateRunIfVersion(tx, run.id, run.version, patch, opts.owner);
    if (!updated) throw new LeaseLost(run.id);
    await opts.also?.(tx);
    for (const e of opts.events ?? []) {
      const row = await appendEvent(tx, { conversationId: run.conversationId, runId: run.id, type: e.type, data: e.data });
      stored.push({ conversationId: run.conversationId, runId: run.id, type: e.type, seq: row.seq, data: e.data });
    }
    return updated;
  });
  for (const e of stored) events.broadcast(e);
  return next;
}

export function usageOf(run: RunRow): { inputTokens: number; outputTokens: number } {
  return run.usage ?? { inputTokens: 0, outputTokens: 0 };
}
