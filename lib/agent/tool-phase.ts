import { randomUUID } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';

import type { Db } from '@/db/connection';
import { appendMessage, getActiveLeaf, type MessageRow } from '@/db/queries/messages';
import { getRun, type RunRow } from '@/db/queries/runs';
import { closeUnfinishedCall, countStepCallsWithStatus, listStepToolCalls, type ToolCallRow } from '@/db/queries/tool-calls';
import { FINISHED_CALL_STATUSES, isOneOf, WAITING_CALL_STATUSES, type PausedRunStatus, type WaitingCallStatus } from '@/db/vocabulary';
import { errorToolResult } from '@/lib/mcp/to-tool-result';

import { auditEndedCalls } from './audit-calls';
import type { EngineDeps } from './deps';
import type { RunEvent } from './events';
import { executeCalls } from './execute-calls';
import { transitionRun, transitionRunWith } from './run-state';
import type { ToolHost } from './tool-host';

/** The step's calls while its results are still owed: the last message is this run's tool_use turn. */
export async function openToolPhase(db: Db, run: RunRow): Promise<ToolCallRow[] | null> {
  const last = await getActiveLeaf(db, run.conversationId);
  if (!last || last.role !== 'assistant' || last.runId !== run.id) return null;
  if (!last.content.some((b) => b.type === 'tool_use')) return null;
  return listStepToolCalls(db, run.id, run.step);
}

/**
 * Decide all, then execute: pauses for a person while any call of the step is pending, runs the
 * decided ones in parallel, pauses for the person while a server needs them to sign in or its
 * elicitation is open, and finally appends ONE user message with every result in tool_use order.
 * Returns the run to continue with, or null when it paused. `onResults` is given that message once
 * it is committed (the drive sends it with the next step without reading it back).
 */
export async function runToolPhase(
  deps: EngineDeps,
  host: ToolHost,
  run: RunRow,
  calls: ToolCallRow[],
  signal: AbortSignal,
  plan?: string | null,
  onResults?: (message: MessageRow) => void,
): Promise<RunRow | null> {
  const pending = calls.filter((c) => c.status === 'pending_approval');
  if (pending.length) return pause(deps, run, 'awaiting_approval', pending);

  const finished = await executeCalls(deps, host, run, calls, signal, plan);
  if (finished) return closeStep(deps, run, finished, onResults);
  const settled = await listStepToolCalls(deps.db, run.id, run.step);
  // A sign-in or an answer that landed while its siblings ran released a call again (to run, or
  // to ask the person): go round once more rather than close it unrun.
  if (!signal.aborted && settled.some((c) => AGAIN.has(c.status))) {
    const fresh = await getRun(deps.db, run.id);
    return fresh?.status === 'running' && fresh.leaseOwner === deps.instanceId ? fresh : null; // else it is no longer ours
  }
  // A server that needs the person to sign in, or asks them something: the step waits for them.
  // Sign-in first: a call waiting for it cannot run at all until they have.
  const signIn = settled.filter((c) => c.status === 'awaiting_sign_in');
  const input = settled.filter((c) => c.status === 'awaiting_input');
  if ((signIn.length || input.length) && !signal.aborted) {
    return pause(deps, run, signIn.length ? 'awaiting_sign_in' : 'awaiting_input', [...signIn, ...input]);
  }

  let results: MessageRow | undefined;
  const next = await transitionRun(
    deps.db,
    deps.events,
    run,
    {},
    {
      owner: deps.instanceId,
      also: async (tx) => {
        results = await appendResults(tx, deps, run, settled, 'The run was stopped before this call finished.');
      },
    },
  );
  if (results) onResults?.(results);
  return next;
}

/**
 * Closes a step whose calls all finished: the results message and the run's swap in one statement
 * (nothing to close as unfinished, nothing to log: each call was logged as it ended).
 */
async function closeStep(deps: EngineDeps, run: RunRow, calls: ToolCallRow[], onResults?: (message: MessageRow) => void): Promise<RunRow> {
  const content = calls.map((c) => c.result!);
  const message = { id: randomUUID(), role: 'user' as const, content, runId: run.id };
  const next = await transitionRunWith(deps.db, deps.events, run, {}, { owner: deps.instanceId, message });
  if (next.message) onResults?.(next.message);
  return next.run;
}

const AGAIN: ReadonlySet<string> = new Set(['auto_approved', 'approved', 'pending_approval']);

class NothingToWaitFor extends Error {}

/**
 * Hands the run to a person. The run row is locked first; a decision, answer or sign-in that
 * landed meanwhile, or a Stop, is seen here and the run carries on instead of waiting for nobody
 * (whoever resumes locks the same row, see resumeIfSettled). Returns null when paused, else the
 * fresh run to continue.
 */
async function pause(deps: EngineDeps, run: RunRow, status: PausedRunStatus, calls: ToolCallRow[]): Promise<RunRow | null> {
  try {
    await transitionRun(
      deps.db,
      deps.events,
      run,
      { status, leaseOwner: null, leaseExpiresAt: null },
      {
        owner: deps.instanceId,
        events: [pauseEvent(status, calls)],
        also: async (tx) => {
          const fresh = await getRun(tx, run.id);
          if (fresh?.cancelRequestedAt) throw new NothingToWaitFor();
          if ((await countStepCallsWithStatus(tx, run.id, run.step, WAITING)) === 0) throw new NothingToWaitFor();
        },
      },
    );
    return null;
  } catch (err) {
    if (err instanceof NothingToWaitFor) return (await getRun(deps.db, run.id)) ?? run;
    throw err;
  }
}

/** Every status in which a call waits for a person. */
export const WAITING = Object.keys(WAITING_CALL_STATUSES) as WaitingCallStatus[];

/**
 * Appends the step's results. Calls without a result yet (stopped, never decided) get an error
 * result saying so, so the history stays valid whatever happened.
 */
export async function appendResults(
  tx: Db,
  deps: Pick<EngineDeps, 'auditKeys' | 'observe'>,
  run: RunRow,
  calls: ToolCallRow[],
  unfinishedReason: string,
): Promise<MessageRow> {
  const blocks: Anthropic.ToolResultBlockParam[] = [];
  const closed: ToolCallRow[] = [];
  for (const call of calls) {
    let result = call.result;
    if (!result || !isOneOf(FINISHED_CALL_STATUSES, call.status)) {
      result = errorToolResult(call.toolUseId, `${call.modelName} did not run: ${unfinishedReason}`);
      const row = await closeUnfinishedCall(tx, call.id, { status: 'cancelled', result, isError: true, endedAt: new Date() });
      if (row) closed.push(row);
    }
    blocks.push(result);
  }
  const message = await appendMessage(tx, { conversationId: run.conversationId, role: 'user', content: blocks, runId: run.id });
  // The calls closed here end as cancelled: logged in this transaction, after its row writes.
  await auditEndedCalls(tx, deps, closed);
  return message;
}

function pauseEvent(status: PausedRunStatus, calls: ToolCallRow[]): RunEvent {
  const toolCallIds = calls.map((c) => c.id);
  switch (status) {
    case 'awaiting_approval':
      return { type: 'run.awaiting_approval', data: { status, toolCallIds } };
    case 'awaiting_input':
      return { type: 'run.awaiting_input', data: { status, toolCallIds } };
    case 'awaiting_sign_in': {
      const servers = new Map<string, string>();
      for (const c of calls) if (c.signIn) servers.set(c.signIn.serverId, c.signIn.serverName);
      const list = [...servers].map(([serverId, serverName]) => ({ serverId, serverName }));
      return { type: 'run.awaiting_sign_in', data: { status, toolCallIds, servers: list } };
    }
  }
}
