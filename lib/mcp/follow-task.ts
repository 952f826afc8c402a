import { specTypeSchemas, type Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';

import { ENDED_TASK_STATUSES, isOneOf } from '@/db/vocabulary';

import type { CallConnections } from './call-connections';
import { closeQuietly, type ConnectOptions } from './connection';
import { describeFailure, redactForServer } from './failures';
import type {
  CallOutcome,
  CancelTaskOptions,
  CancelTaskOutcome,
  FollowTaskOptions,
  McpCallResult,
  McpServerConfig,
  ServerTask,
} from './types';

/**
 * MCP Tasks, the client half: a `tools/call` sent with `task` may be answered with a task instead
 * of a result; the host then asks `tasks/get` until the task ends, takes the result from
 * `tasks/result`, and sends `tasks/cancel` when the person stops the run.
 *
 * SDK 2.4.0 has the task wire schemas (`specTypeSchemas.CreateTaskResult`, `GetTaskResult`, …) but
 * no task runtime: no helper that sends a task-augmented call or polls, and on the 2026-07-28 era
 * its result decoder refuses a `tools/call` answered with a task (`UNSUPPORTED_RESULT_TYPE`, the
 * task id lost). So a call is asked as a task only on a 2025-11-25 connection to a server that
 * declares `capabilities.tasks.requests.tools.call`; the requests go through `client.request` with
 * the SDK's schemas. Everything else runs the call as before.
 */

/** How long a task may be kept by the server after it ends (what the host asks for). */
const TASK_TTL_MS = 60 * 60 * 1000;
const MIN_POLL_MS = 200;
const MAX_POLL_MS = 5000;
/** Polls that may fail in a row (the server restarting, a cut connection) before the call fails. */
const MAX_POLL_FAILURES = 5;

/** Whether this connection can ask for the call as a task. */
export function canRunAsTask(client: Client, support: 'optional' | 'required' | undefined): boolean {
  if (!support || client.getProtocolEra() !== 'legacy') return false;
  return client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
}

/** The `task` member a task-augmented `tools/call` carries. */
export const taskRequest = { task: { ttl: TASK_TTL_MS } };

/** A `tools/call` answer that is either a result or a task: the two are told apart by `task`. */
export const resultOrTaskSchema: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'switchboard',
    validate: (value: unknown) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'the tools/call result is not an object' }] },
  },
};

/** The task in a `tools/call` answer, if the server answered with one. */
export function taskIn(result: Record<string, unknown>): ServerTask | undefined {
  if (!('task' in result)) return undefined;
  const parsed = specTypeSchemas.CreateTaskResult['~standard'].validate(result);
  return parsed.issues ? undefined : serverTask(parsed.value.task);
}

function serverTask(task: { taskId: string; status: ServerTask['status']; statusMessage?: string; pollInterval?: number }): ServerTask {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    ...(task.pollInterval !== undefined && { pollIntervalMs: task.pollInterval }),
  };
}

/**
 * Polls the task until it ends (backing off while nothing changes, from the server's suggested
 * interval up to 5 s), then returns its result as a call's outcome. The connection is the
 * conversation's, opened again after a failed poll: the task lives on the server, not in it.
 */
export async function followTask(
  connections: CallConnections,
  connectDeps: Omit<ConnectOptions, 'signal' | 'timeoutMs'>,
  server: McpServerConfig,
  taskId: string,
  opts: FollowTaskOptions,
): Promise<CallOutcome> {
  const options: ConnectOptions = { ...connectDeps, timeoutMs: opts.timeoutMs };
  const requestOptions = { timeout: opts.timeoutMs, signal: opts.signal };
  let client: Client | undefined;
  let kept = false;
  const close = async () => {
    if (client) await closeQuietly(client, { keepSession: kept });
    client = undefined;
  };
  let last: ServerTask | undefined;
  let failures = 0;
  let delay = MIN_POLL_MS;
  const cancelled = (): CallOutcome => ({ kind: 'cancelled', message: `The task on ${server.displayName} was cancelled.` });
  try {
    for (;;) {
      if (opts.signal.aborted) {
        if (opts.cancelOnAbort()) await cancelTask(connections, connectDeps, server, taskId, opts);
        return cancelled();
      }
      try {
        if (!client) {
          const opened = await connections.open(server, opts.caller, { ...options, signal: opts.signal });
          ({ client } = opened);
          kept = opened.held !== undefined;
        }
        const task = serverTask(
          await client.request({ method: 'tasks/get', params: { taskId } }, specTypeSchemas.GetTaskResult, requestOptions),
        );
        failures = 0;
        const changed = task.status !== last?.status || task.statusMessage !== last?.statusMessage;
        if (changed) opts.onStatus?.(task);
        last = task;
        // The server ended the task itself (the person did not stop anything): the model is told so.
        if (task.status === 'cancelled') return cancelledByServer(server, task);
        if (isOneOf(ENDED_TASK_STATUSES, task.status)) {
          const result = await client.request(
            { method: 'tasks/result', params: { taskId } },
            specTypeSchemas.GetTaskPayloadResult,
            requestOptions,
          );
          return { kind: 'result', result: result as McpCallResult };
        }
        const base = Math.max(MIN_POLL_MS, task.pollIntervalMs ?? 1000);
        delay = changed ? base : Math.min(MAX_POLL_MS, Math.max(base, delay * 1.5));
      } catch (error) {
        if (opts.signal.aborted) continue;
        await close();
        if (++failures >= MAX_POLL_FAILURES) {
          const failed =
            last?.status === 'failed'
              ? `the task failed (${last.statusMessage ?? 'no reason given'}) and its result could not be read`
              : 'it could not be followed';
          return {
            kind: 'failed',
            message: redactForServer(
              server,
              `${describeFailure(server.displayName, server.url, `follow task ${taskId}`, error)} (${failed})`,
            ),
          };
        }
        delay = Math.min(MAX_POLL_MS, delay * 2);
      }
      await sleep(delay, opts.signal);
    }
  } finally {
    await close();
  }
}

/**
 * Sends `tasks/cancel` on a connection of its own (the run's signal, if any, is already aborted),
 * within `timeoutMs` overall. Best effort: the task may have ended meanwhile, or the server be
 * gone; the failure is returned in words, never thrown.
 */
export async function cancelTask(
  connections: CallConnections,
  connectDeps: Omit<ConnectOptions, 'signal' | 'timeoutMs'>,
  server: McpServerConfig,
  taskId: string,
  opts: CancelTaskOptions,
): Promise<CancelTaskOutcome> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let client: Client | undefined;
  let kept = false;
  try {
    const opened = await connections.open(server, opts.caller, { ...connectDeps, timeoutMs: opts.timeoutMs, signal });
    ({ client } = opened);
    kept = opened.held !== undefined;
    await client.request({ method: 'tasks/cancel', params: { taskId } }, specTypeSchemas.CancelTaskResult, {
      timeout: opts.timeoutMs,
      signal,
    });
    return { ok: true };
  } catch (error) {
    return { ok: false, message: redactForServer(server, describeFailure(server.displayName, server.url, `cancel task ${taskId}`, error)) };
  } finally {
    if (client) await closeQuietly(client, { keepSession: kept });
  }
}

function cancelledByServer(server: McpServerConfig, task: ServerTask): CallOutcome {
  const why = task.statusMessage ? ` (${task.statusMessage})` : '';
  return {
    kind: 'cancelled',
    byServer: true,
    message: `${server.displayName} cancelled the task itself before it finished${why}; the person did not stop it.`,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
