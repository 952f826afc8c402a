import type { RunRow } from '@/db/queries/runs';
import type { ToolCallRow } from '@/db/queries/tool-calls';

import { abandonedTasks, cancelAbandonedTasks } from './cancel-tasks';
import type { EngineDeps } from './deps';
import type { RunEvent } from './events';
import { partialTextContent } from './model-step';
import { observe } from './observe';
import { transitionRun, usageOf } from './run-state';
import { appendResults, openToolPhase } from './tool-phase';

/**
 * Ends a run: status, stop reason, usage and the closing event, in one transaction. Text streamed
 * before a Stop or a failure is kept; tool results still owed (a Stop while a person was being
 * asked) are written as errors, so the stored conversation stays a valid Messages API history.
 * A cancelled run whose calls still had tasks running on their servers (nobody following them:
 * every path of Stop ends here) tells those servers with `tasks/cancel`, after the end is stored.
 */
export async function finish(
  deps: EngineDeps,
  run: RunRow,
  status: 'completed' | 'failed' | 'cancelled',
  opts: {
    stopReason?: string;
    error?: { code: string; message: string };
    partial?: { messageId: string; text: string[] };
    /** The lease owner finishing it; omitted when ending a run nobody is driving (Stop of a paused run). */
    owner?: string;
    /** The tool results still owed, when the caller knows (null: none); else they are read. */
    owed?: ToolCallRow[] | null;
  } = {},
): Promise<RunRow> {
  const partial = opts.partial ? partialTextContent(opts.partial.text) : [];
  const stopReason = opts.stopReason ?? (status === 'cancelled' ? 'cancelled' : status === 'failed' ? 'error' : 'end_turn');
  const usage = usageOf(run);
  const type = status === 'completed' ? 'run.completed' : status === 'failed' ? 'run.failed' : 'run.cancelled';
  const events: RunEvent[] = [];
  if (partial.length && opts.partial) {
    const message = { id: opts.partial.messageId, role: 'assistant' as const, content: partial, stopReason };
    events.push({ type: 'message.completed', data: { messageId: opts.partial.messageId, message } });
  }
  events.push({ type, data: { status, stopReason, usage, ...(opts.error ? { error: opts.error } : {}) } });
  const owed = opts.owed !== undefined ? opts.owed : await openToolPhase(deps.db, run);
  const ended = await transitionRun(
    deps.db,
    deps.events,
    run,
    { status, stopReason, error: opts.error ?? null, endedAt: new Date(), leaseOwner: null, leaseExpiresAt: null },
    {
      owner: opts.owner,
      events,
      // Results still owed are written before the swap (with their own rows to close), then the rest.
      also: owed
        ? async (tx) => {
            await appendResults(tx, deps, run, owed, status === 'cancelled' ? 'the person stopped the run.' : 'the run ended first.');
          }
        : undefined,
      // The text streamed before a Stop or a failure, stored with the closing events (one statement without owed results).
      message:
        partial.length && opts.partial
          ? { id: opts.partial.messageId, role: 'assistant', content: partial, runId: run.id, stopReason }
          : undefined,
    },
  );
  // Counted once the end is stored: a writer that lost the run (LeaseLost) ended nothing.
  observe(deps, (o) => o.turnEnded(status));
  // After the response, never holding up the end (./cancel-tasks.ts bounds and logs each attempt).
  const abandoned = status === 'cancelled' ? abandonedTasks(owed) : [];
  if (abandoned.length) deps.schedule(() => cancelAbandonedTasks(deps, run, abandoned));
  return ended;
}
