import { randomUUID } from 'node:crypto';
import { getRun, renewRunLease, type RunRow } from '@/db/queries/runs';
import { appendMessage, listMessages } from '@/db/queries/messages';
import { describeModelError } from '@/lib/model/errors';
import { processSingleton } from '@/lib/process-singleton';
import { DEFAULT_HEARTBEAT_MS, leaseUntil, type EngineDeps } from './deps';
import { toMessageParams } from './history';
import { assistantContentToStore, partialTextContent, streamModelStep, type StepOutcome } from './model-step';
import { LeaseLost, transitionRun, usageOf } from './run-state';
import { unavailableToolResults } from './tool-results';

/** Runs driven by this process, so a Stop that lands here aborts at once. */
const localRuns = processSingleton('localRuns', () => new Map<string, AbortController>());

export function abortLocalRun(runId: string): boolean {
  const ctl = localRuns.get(runId);
  ctl?.abort('cancel');
  return Boolean(ctl);
}

/**
 * Advances a running run that this instance holds the lease of, step by step, until it ends,
 * pauses, or the lease is lost. Safe to call on any instance: without the lease it does nothing.
 */
export async function driveRun(deps: EngineDeps, runId: string): Promise<void> {
  let run = await getRun(deps.db, runId);
  if (!run || run.status !== 'running' || run.leaseOwner !== deps.instanceId || localRuns.has(runId)) return;

  const ctl = new AbortController();
  localRuns.set(runId, ctl);
  const heartbeat = setInterval(() => {
    renewRunLease(deps.db, runId, deps.instanceId, leaseUntil(deps))
      .then((lease) => {
        if (!lease) ctl.abort('lease_lost');
        else if (lease.cancelRequestedAt) ctl.abort('cancel');
      })
      .catch((err) => console.error('[run] lease renewal failed:', err.message));
  }, deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);

  try {
    for (;;) {
      if (run.cancelRequestedAt || ctl.signal.reason === 'cancel') return void (await finish(deps, run, 'cancelled', { owner: deps.instanceId }));
      if (ctl.signal.aborted) return;
      if (run.step >= run.maxSteps) return void (await finish(deps, run, 'completed', { stopReason: 'max_steps', owner: deps.instanceId }));
      const next = await advanceStep(deps, run, ctl.signal);
      if (!next) return;
      run = next;
    }
  } catch (err) {
    if (err instanceof LeaseLost) return; // another instance has it now; write nothing more
    console.error(`[run ${runId}] unexpected failure:`, err);
    const latest = await getRun(deps.db, runId).catch(() => null);
    if (latest?.status === 'running' && latest.leaseOwner === deps.instanceId) {
      await finish(deps, latest, 'failed', {
        owner: deps.instanceId,
        error: { code: 'internal', message: 'Switchboard hit an unexpected error while running this turn. Try again.' },
      }).catch(() => {});
    }
  } finally {
    clearInterval(heartbeat);
    localRuns.delete(runId);
  }
}

/** One model call and what follows from it. Returns the run to continue with, or null when it ended. */
async function advanceStep(deps: EngineDeps, run: RunRow, signal: AbortSignal): Promise<RunRow | null> {
  const stepRun = await transitionRun(deps.db, deps.events, run, { step: run.step + 1 }, { owner: deps.instanceId });
  const history = toMessageParams(await listMessages(deps.db, run.conversationId));
  const messageId = randomUUID();
  const outcome = await streamModelStep(
    deps,
    { conversationId: run.conversationId, runId: run.id, messageId },
    { messages: history, tools: [] },
    signal,
  );
  return afterStep(deps, stepRun, messageId, outcome, signal);
}

async function afterStep(
  deps: EngineDeps,
  run: RunRow,
  messageId: string,
  outcome: StepOutcome,
  signal: AbortSignal,
): Promise<RunRow | null> {
  if (outcome.kind === 'aborted') {
    if (signal.reason !== 'cancel') return null; // lease lost: the new owner redoes the step
    await finish(deps, run, 'cancelled', { owner: deps.instanceId, partial: { messageId, text: outcome.partialText } });
    return null;
  }
  if (outcome.kind === 'error') {
    const error = describeModelError(outcome.error, { baseURL: deps.model.client.baseURL });
    await finish(deps, run, 'failed', { owner: deps.instanceId, error, partial: { messageId, text: outcome.partialText } });
    return null;
  }

  const content = assistantContentToStore(outcome.content, outcome.stopReason);
  const prior = usageOf(run);
  const usage = {
    inputTokens: prior.inputTokens + (outcome.usage.input_tokens ?? 0),
    outputTokens: prior.outputTokens + (outcome.usage.output_tokens ?? 0),
  };
  const toolResults = outcome.stopReason === 'tool_use' ? unavailableToolResults(content) : [];
  const message = { id: messageId, role: 'assistant' as const, content, stopReason: outcome.stopReason };
  const next = await transitionRun(deps.db, deps.events, run, { usage }, {
    owner: deps.instanceId,
    events: [{ type: 'message.completed', data: { messageId, message } }],
    also: async (tx) => {
      await appendMessage(tx, { id: messageId, conversationId: run.conversationId, role: 'assistant', content, runId: run.id, stopReason: outcome.stopReason });
      if (toolResults.length) {
        await appendMessage(tx, { conversationId: run.conversationId, role: 'user', content: toolResults, runId: run.id });
      }
    },
  });
  if (outcome.stopReason === 'tool_use' || outcome.stopReason === 'pause_turn') return next;
  await finish(deps, next, 'completed', { owner: deps.instanceId, stopReason: outcome.stopReason });
  return null;
}

/** Ends a run: status, stop reason, usage and the closing event, in one transaction. */
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
  } = {},
): Promise<RunRow> {
  const partial = opts.partial ? partialTextContent(opts.partial.text) : [];
  const stopReason = opts.stopReason ?? (status === 'cancelled' ? 'cancelled' : status === 'failed' ? 'error' : 'end_turn');
  const usage = usageOf(run);
  const type = status === 'completed' ? 'run.completed' : status === 'failed' ? 'run.failed' : 'run.cancelled';
  const events: { type: 'message.completed' | typeof type; data: Record<string, unknown> }[] = [];
  if (partial.length && opts.partial) {
    const message = { id: opts.partial.messageId, role: 'assistant', content: partial, stopReason };
    events.push({ type: 'message.completed', data: { messageId: opts.partial.messageId, message } });
  }
  events.push({ type, data: { status, stopReason, usage, ...(opts.error ? { error: opts.error } : {}) } });
  return transitionRun(
    deps.db,
    deps.events,
    run,
    { status, stopReason, error: opts.error ?? null, endedAt: new Date(), leaseOwner: null, leaseExpiresAt: null },
    {
      owner: opts.owner,
      events,
      also: async (tx) => {
        if (partial.length && opts.partial) {
          await appendMessage(tx, { id: opts.partial.messageId, conversationId: run.conversationId, role: 'assistant', content: partial, runId: run.id, stopReason });
        }
      },
    },
  );
}
