import type { RunRow } from '@/db/queries/runs';
import { toolCallSwapSql, type ToolCallPatch, type ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredTask } from '@/db/stored-json';
import type { CallOutcome, McpServerConfig, ServerTask } from '@/lib/mcp/types';

import type { EngineDeps } from './deps';
import type { callTaint } from './taint';
import { toToolCallView } from './tool-call-view';
import type { ToolHost } from './tool-host';

/**
 * MCP Tasks in the durable run: a call the server answered with a task keeps its task on its row
 * (`tool_calls.task`, with the `tool_call.task` event) before anything waits on it, so whichever
 * instance drives the run next — this one, or one that took the run over after a crash — follows
 * the same task id to its end instead of calling the tool again. While it runs, each change of
 * the task's status or message goes out live as `tool_call.task_status` (the card's "Running on
 * the server — 40% done"). Stop sends `tasks/cancel`; a lost lease does not (the next owner goes
 * on following); a run stopped while nobody follows its task tells the server in `finish`
 * (./cancel-tasks.ts). The task's result then becomes the call's outcome like any other result.
 */

export interface FollowedTask {
  /** The call as this drive last wrote it (null: the write failed, the lease is gone). */
  call: ToolCallRow | null;
  outcome: CallOutcome;
  /** The task as it ended, stored with the outcome. */
  task: StoredTask;
}

/** Stores the task the server started for `call` (executing), then follows it. */
export async function startFollowing(
  deps: EngineDeps,
  host: ToolHost,
  run: RunRow,
  call: ToolCallRow,
  server: McpServerConfig,
  started: ServerTask,
  signal: AbortSignal,
  taint: ReturnType<typeof callTaint>,
): Promise<FollowedTask> {
  const task: StoredTask = {
    v: 1,
    taskId: started.taskId,
    serverId: server.id,
    status: started.status,
    ...(started.statusMessage !== undefined && { statusMessage: started.statusMessage }),
    ...(started.pollIntervalMs !== undefined && { pollIntervalMs: started.pollIntervalMs }),
    at: new Date().toISOString(),
  };
  const patch: ToolCallPatch = { task };
  const stored = { ...call, task, version: call.version + 1 };
  const swapped = await deps.events.storeWith(
    deps.db,
    run.conversationId,
    run.id,
    [{ type: 'tool_call.task', data: { toolCall: toToolCallView(stored) } }],
    { guard: toolCallSwapSql(deps.db, call.id, call.version, deps.instanceId, patch) },
  );
  if (!swapped) return { call: null, outcome: { kind: 'cancelled', message: 'The run moved on without this drive.' }, task };
  return follow(deps, host, run, stored, server, signal, taint);
}

/** Follows the task stored on `call` (a new drive, or the one that stored it) until it ends. */
export async function follow(
  deps: EngineDeps,
  host: ToolHost,
  run: RunRow,
  call: ToolCallRow & { task: StoredTask },
  server: McpServerConfig,
  signal: AbortSignal,
  taint: ReturnType<typeof callTaint>,
): Promise<FollowedTask> {
  let task = call.task;
  if (!host.gateway.followTask) {
    const outcome: CallOutcome = { kind: 'failed', message: `Switchboard cannot follow the task ${task.taskId} in this process.` };
    return { call, outcome, task };
  }
  const outcome = await host.gateway.followTask(server, task.taskId, {
    caller: { userId: run.userId, conversationId: run.conversationId },
    signal,
    cancelOnAbort: () => signal.reason === 'cancel',
    timeoutMs: server.timeoutMs,
    onStatus: (now) => {
      task = { ...task, status: now.status, ...(now.statusMessage !== undefined && { statusMessage: now.statusMessage }) };
      // The status message is the server's text, as a progress message is: it taints the same way.
      if (now.statusMessage) taint.progress({ progress: 0, message: now.statusMessage });
      deps.events.live(run.conversationId, run.id, 'tool_call.task_status', {
        toolCallId: call.id,
        status: now.status,
        statusMessage: now.statusMessage ?? null,
      });
    },
  });
  return { call, outcome, task: { ...task, status: endedStatus(outcome, task) } };
}

/** How the task ended, as far as Switchboard saw it (a follow that failed keeps the last status heard). */
function endedStatus(outcome: CallOutcome, task: StoredTask): StoredTask['status'] {
  if (outcome.kind === 'cancelled') return 'cancelled';
  if (outcome.kind === 'result') return outcome.result.isError === true ? 'failed' : 'completed';
  return task.status;
}

export function hasTask(call: ToolCallRow): call is ToolCallRow & { task: StoredTask } {
  return call.task !== null;
}
