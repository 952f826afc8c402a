import type Anthropic from '@anthropic-ai/sdk';

import type { Db } from '@/db/connection';
import { appendMessage, getLastMessage } from '@/db/queries/messages';
import { getRun, type RunRow } from '@/db/queries/runs';
import { closeUnfinishedCall, countStepCallsWithStatus, listStepToolCalls, type ToolCallRow } from '@/db/queries/tool-calls';
import { FINISHED_CALL_STATUSES, isOneOf } from '@/db/vocabulary';
import { errorToolResult } from '@/lib/mcp/to-tool-result';

import type { EngineDeps } from './deps';
import type { RunEvent } from './events';
import { executeCalls } from './execute-calls';
import { transitionRun } from './run-state';
import type { ToolHost } from './tool-host';

/** The step's calls while its results are still owed: the last message is this run's tool_use turn. */
export async function openToolPhase(db: Db, run: RunRow): Promise<ToolCallRow[] | null> {
  const last = await getLastMessage(db, run.conversationId);
  if (!last || last.role !== 'assistant' || last.runId !== run.id) return null;
  if (!last.content.some((b) => b.type === 'tool_use')) return null;
  return listStepToolCalls(db, run.id, run.step);
}

/**
 * Decide all, then execute: pauses for a person while any call of the step is pending, runs the
 * decided ones in parallel, pauses for input while a server's elicitation is open, and finally
 * appends ONE user message with every result in tool_use order. Returns the run to continue
 * with, or null when it paused.
 */
export async function runToolPhase(
  deps: EngineDeps,
  host: ToolHost,
  run: RunRow,
  calls: ToolCallRow[],
  signal: AbortSignal,
): Promise<RunRow | null> {
  const pending = calls.filter((c) => c.status === 'pending_approval');
  if (pending.length) return pause(deps, run, 'awaiting_approval', pending);

  await executeCalls(deps, host, run, calls, signal);
  const settled = await listStepToolCalls(deps.db, run.id, run.step);
  const waiting = settled.filter((c) => c.status === 'awaiting_input');
  if (waiting.length && !signal.aborted) return pause(deps, run, 'awaiting_input', waiting);

  return transitionRun(
    deps.db,
    deps.events,
    run,
    {},
    {
      owner: deps.instanceId,
      also: (tx) => appendResults(tx, run, settled, 'The run was stopped before this call finished.'),
    },
  );
}

class NothingToWaitFor extends Error {}

/**
 * Hands the run to a person. The run row is locked first; a decision that landed meanwhile, or
 * a Stop, is seen here and the run carries on instead of waiting for nobody (deciders lock the
 * same row, see resumeIfSettled). Returns null when paused, else the fresh run to continue.
 */
async function pause(
  deps: EngineDeps,
  run: RunRow,
  status: 'awaiting_approval' | 'awaiting_input',
  calls: ToolCallRow[],
): Promise<RunRow | null> {
  const waitingStatus = status === 'awaiting_approval' ? 'pending_approval' : 'awaiting_input';
  try {
    await transitionRun(
      deps.db,
      deps.events,
      run,
      { status, leaseOwner: null, leaseExpiresAt: null },
      {
        owner: deps.instanceId,
        events: [
          pauseEvent(
            status,
            calls.map((c) => c.id),
          ),
        ],
        also: async (tx) => {
          const fresh = await getRun(tx, run.id);
          if (fresh?.cancelRequestedAt) throw new NothingToWaitFor();
          if ((await countStepCallsWithStatus(tx, run.id, run.step, waitingStatus)) === 0) throw new NothingToWaitFor();
        },
      },
    );
    return null;
  } catch (err) {
    if (err instanceof NothingToWaitFor) return (await getRun(deps.db, run.id)) ?? run;
    throw err;
  }
}

/**
 * Appends the step's results. Calls without a result yet (stopped, never decided) get an error
 * result saying so, so the history stays valid whatever happened.
 */
export async function appendResults(tx: Db, run: RunRow, calls: ToolCallRow[], unfinishedReason: string): Promise<void> {
  const blocks: Anthropic.ToolResultBlockParam[] = [];
  for (const call of calls) {
    let result = call.result;
    if (!result || !isOneOf(FINISHED_CALL_STATUSES, call.status)) {
      result = errorToolResult(call.toolUseId, `${call.modelName} did not run: ${unfinishedReason}`);
      await closeUnfinishedCall(tx, call.id, { status: 'cancelled', result, isError: true, endedAt: new Date() });
    }
    blocks.push(result);
  }
  await appendMessage(tx, { conversationId: run.conversationId, role: 'user', content: blocks, runId: run.id });
}

function pauseEvent(status: 'awaiting_approval' | 'awaiting_input', toolCallIds: string[]): RunEvent {
  return status === 'awaiting_approval'
    ? { type: 'run.awaiting_approval', data: { status, toolCallIds } }
    : { type: 'run.awaiting_input', data: { status, toolCallIds } };
}
