import type { Db } from '@/db/connection';
import { updateRunIfVersion, type RunPatch, type RunRow } from '@/db/queries/runs';
import { ENDED_RUN_STATUSES, PAUSED_RUN_STATUSES, type RunStatus } from '@/db/vocabulary';

import type { EventSink, RunEvent } from './events';

export class LeaseLost extends Error {
  constructor(runId: string) {
    super(`run ${runId} is no longer ours`);
  }
}

/**
 * Where a run may go from each status (docs/ARCHITECTURE.md draws it). A running run pauses for a
 * person or ends; a paused one goes back to running once they act, or ends (Stop); an ended run
 * stays ended. Staying in `running` (a new step, a renewed lease) is a change, not a transition.
 */
const NEXT_STATUSES: Record<RunStatus, readonly RunStatus[]> = {
  running: ['running', ...PAUSED_RUN_STATUSES, ...ENDED_RUN_STATUSES],
  awaiting_approval: ['running', ...ENDED_RUN_STATUSES],
  awaiting_input: ['running', ...ENDED_RUN_STATUSES],
  awaiting_sign_in: ['running', ...ENDED_RUN_STATUSES],
  completed: [],
  failed: [],
  cancelled: [],
};

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return NEXT_STATUSES[from].includes(to);
}

export class IllegalTransition extends Error {
  constructor(runId: string, from: RunStatus, to: RunStatus) {
    super(`run ${runId} cannot go from ${from} to ${to}`);
  }
}

/** The one check every status change of a run goes through (here and where a person resumes one). */
export function checkTransition(run: Pick<RunRow, 'id' | 'status'>, to: RunStatus): void {
  if (!canTransition(run.status, to)) throw new IllegalTransition(run.id, run.status, to);
}

/**
 * Applies a run change and stores its events in one transaction, compare-and-swapping on the
 * run's version (and lease owner while running). If another instance moved the run, nothing is
 * written and LeaseLost is thrown. Events are announced by the statement that stores them, so
 * they go out when the transaction commits and never without it.
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
  return db.transaction(async (tx) => {
    const updated = await updateRunIfVersion(tx, run.id, run.version, patch, opts.owner);
    if (!updated) throw new LeaseLost(run.id);
    // The swap held, so `run` was the current row: its status is where the run really was (a stale
    // writer is told LeaseLost above, whatever it meant to do). An illegal move rolls back.
    if (patch.status) checkTransition(run, patch.status);
    await opts.also?.(tx);
    await events.store(tx, run.conversationId, run.id, opts.events ?? []);
    return updated;
  });
}

export function usageOf(run: RunRow): { inputTokens: number; outputTokens: number } {
  return run.usage ?? { inputTokens: 0, outputTokens: 0 };
}
