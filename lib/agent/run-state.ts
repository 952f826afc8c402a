import type { SQL } from 'drizzle-orm';

import type { Db } from '@/db/connection';
import type { LoggedMessage } from '@/db/queries/events';
import type { MessageRow } from '@/db/queries/messages';
import { runSwapSql, updateRunIfVersion, type RunPatch, type RunRow } from '@/db/queries/runs';
import { ENDED_RUN_STATUSES, PAUSED_RUN_STATUSES, type RunStatus } from '@/db/vocabulary';

import type { EventSink, RunEvent, StoredWith } from './events';

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

export interface TransitionOptions {
  owner?: string;
  events?: RunEvent[];
  /** Writes of the same transaction made before the swap (the run row is locked first then, as every writer of a run does). */
  also?: (tx: Db) => Promise<void>;
  /** A message stored with the events, in their statement. */
  message?: LoggedMessage;
  /**
   * Writes after the events' statement, in the same transaction: the audit log's, whose chain-head
   * lock must be the transaction's last (lib/audit/append.ts). Given what that statement stored.
   */
  after?: (tx: Db, stored: StoredWith) => Promise<void>;
  /** Model tokens the step used, added to the user's count for today in the same statement. */
  modelTokens?: { userId: string; tokens: number };
}

/**
 * Applies a run change and stores its events in one transaction, compare-and-swapping on the
 * run's version (and lease owner while running). If another instance moved the run, nothing is
 * written and LeaseLost is thrown. Events are announced by the statement that stores them, so
 * they go out when the transaction commits and never without it. Without `also`, the swap, the
 * message, the model tokens and the events are one statement.
 */
export async function transitionRun(
  db: Db,
  events: EventSink,
  run: RunRow,
  patch: RunPatch,
  opts: TransitionOptions = {},
): Promise<RunRow> {
  return (await transitionRunWith(db, events, run, patch, opts)).run;
}

/** transitionRun, also returning the message it stored. */
export async function transitionRunWith(
  db: Db,
  events: EventSink,
  run: RunRow,
  patch: RunPatch,
  opts: TransitionOptions = {},
): Promise<{ run: RunRow; message: MessageRow | null }> {
  return db.transaction(async (tx) => {
    const now = new Date();
    let next: RunRow;
    let guard: SQL | undefined;
    if (opts.also || (patch.status && !canTransition(run.status, patch.status))) {
      const updated = await updateRunIfVersion(tx, run.id, run.version, patch, opts.owner);
      if (!updated) throw new LeaseLost(run.id);
      // The swap held, so `run` was the current row: its status is where the run really was (a stale
      // writer is told LeaseLost above, whatever it meant to do). An illegal move rolls back.
      if (patch.status) checkTransition(run, patch.status);
      await opts.also?.(tx);
      next = updated;
    } else {
      guard = runSwapSql(tx, run.id, run.version, patch, opts.owner, now);
      // Held only if the run was exactly `run`: the new row is it with the patch applied.
      next = { ...run, ...patch, version: run.version + 1, updatedAt: now };
    }
    const written = await events.storeWith(tx, run.conversationId, run.id, opts.events ?? [], {
      guard,
      message: opts.message,
      modelTokens: opts.modelTokens,
    });
    if (!written) throw new LeaseLost(run.id);
    await opts.after?.(tx, written);
    if (guard && written.guarded) {
      const { cancel_requested_at: cancel, lease_expires_at: lease } = written.guarded as {
        cancel_requested_at: string | null;
        lease_expires_at: string | null;
      };
      next = { ...next, cancelRequestedAt: cancel ? new Date(cancel) : null, leaseExpiresAt: lease ? new Date(lease) : null };
    }
    return { run: next, message: written.message };
  });
}

/** The run's tokens so far (cache figures zero on a row from before prompt caching). */
export function usageOf(run: RunRow): {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
} {
  const u = run.usage;
  return {
    inputTokens: u?.inputTokens ?? 0,
    outputTokens: u?.outputTokens ?? 0,
    cacheCreationInputTokens: u?.cacheCreationInputTokens ?? 0,
    cacheReadInputTokens: u?.cacheReadInputTokens ?? 0,
  };
}
