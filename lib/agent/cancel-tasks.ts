import type { RunRow } from '@/db/queries/runs';
import type { ToolCallRow } from '@/db/queries/tool-calls';
import { errorSummary } from '@/lib/log-safe';

import type { EngineDeps } from './deps';

/** How long one `tasks/cancel` may take (connecting included): a gone server must not hold anything up. */
export const CANCEL_TASK_TIMEOUT_MS = 5000;

/** The calls of a run ending cancelled whose task may still be running on its server (nobody follows it). */
export function abandonedTasks(calls: ToolCallRow[] | null): ToolCallRow[] {
  return (calls ?? []).filter((c) => c.status === 'executing' && c.task !== null);
}

/**
 * A run ended cancelled while a call still had a task on its server: the follower that would have
 * sent `tasks/cancel` is gone (its lease lapsed, its process died) or never started (a new owner
 * found the Stop first). The server is told here, best effort, each within a bounded time:
 * failures are logged, never thrown — the run has already ended.
 */
export async function cancelAbandonedTasks(deps: EngineDeps, run: RunRow, calls: ToolCallRow[]): Promise<void> {
  const host = deps.tools;
  const cancel = host?.gateway.cancelTask?.bind(host.gateway);
  if (!host || !cancel || !calls.length) return;
  const servers = await host.serversFor(run.userId).catch((err: unknown) => {
    console.error(`[run ${run.id}] could not read the servers to cancel tasks on:`, errorSummary(err));
    return [];
  });
  await Promise.all(
    calls.map(async (call) => {
      const taskId = call.task!.taskId;
      const server = servers.find((s) => s.id === call.task!.serverId);
      if (!server) return console.error(`[run ${run.id}] task ${taskId} left running: its server is no longer available`);
      const timeoutMs = Math.min(server.timeoutMs, CANCEL_TASK_TIMEOUT_MS);
      const sent = await cancel(server, taskId, { caller: { userId: run.userId, conversationId: run.conversationId }, timeoutMs });
      if (!sent.ok) console.error(`[run ${run.id}] tasks/cancel failed: ${sent.message}`);
    }),
  );
}
