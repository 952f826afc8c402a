import { randomUUID } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';

import { appendMessage, type MessageRow } from '@/db/queries/messages';
import { getRun, type RunRow } from '@/db/queries/runs';
import { readStepState } from '@/db/queries/step-state';
import { insertToolCalls, type ToolCallRow } from '@/db/queries/tool-calls';
import { getUserPlan } from '@/db/queries/users';
import { errorSummary } from '@/lib/log-safe';
import { describeModelError } from '@/lib/model/errors';
import { processSingleton } from '@/lib/process-singleton';

import { auditEndedCalls } from './audit-calls';
import { DriveHistory } from './context/drive-history';
import { streamFittedStep } from './context/fitted-step';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_MS, type EngineDeps } from './deps';
import type { RunEvent } from './events';
import { finish } from './finish';
import { holdLease } from './lease-keeper';
import { assistantContentToStore, type StepOutcome } from './model-step';
import { proposeCalls } from './propose-calls';
import { tokensReached } from './run-limits';
import { depsForRun } from './run-model';
import { LeaseLost, transitionRunWith, usageOf } from './run-state';
import { offerForStep } from './step-offer';
import { markOfferTaint } from './taint';
import { toToolCallView } from './tool-call-view';
import type { ToolOffer } from './tool-host';
import { openToolPhase, runToolPhase } from './tool-phase';
import { unavailableToolResults } from './tool-results';

/** Runs driven by this process, so a Stop that lands here aborts at once. */
const localRuns = processSingleton('localRuns', () => new Map<string, AbortController>());

export function abortLocalRun(runId: string): boolean {
  const ctl = localRuns.get(runId);
  ctl?.abort('cancel');
  return Boolean(ctl);
}

const NO_TOOLS: ToolOffer = { tools: [], routes: new Map(), nameMap: {} };

/** What `startRun` hands the drive of a run it just wrote: the row as written and the plan it was admitted under. */
export interface JustStarted {
  run: RunRow;
  plan: string | null;
}

/**
 * Advances a running run that this instance holds the lease of, until it ends, pauses for a
 * person, or the lease is lost. Safe to call on any instance: without the lease it does nothing.
 */
export async function driveRun(deps: EngineDeps, runId: string, known: JustStarted | Record<string, never> = {}): Promise<void> {
  // A run just started here is passed along as written; any other drive reads it first.
  let run = known.run?.id === runId ? known.run : await getRun(deps.db, runId);
  if (!run || run.status !== 'running' || run.leaseOwner !== deps.instanceId || localRuns.has(runId)) return;
  // Every step asks the run's own model (the conversation's when the turn started), within its limits.
  deps = depsForRun(deps, run);
  // Read once per drive (until the run pauses or ends): every step's limits and grants use it.
  const plan = known.run ? known.plan : await getUserPlan(deps.db, run.userId);
  // What this drive knows it owes (undefined: read it): a run just started owes no tool results.
  let owed: ToolCallRow[] | null | undefined = known.run ? null : undefined;
  // Its admission just counted today's model tokens: the first step need not again.
  let tokensChecked = Boolean(known.run);
  // The conversation as this drive sends it: read at its first step, then kept with what it writes.
  const history = new DriveHistory();

  const ctl = new AbortController();
  localRuns.set(runId, ctl);
  // Renewed with the other runs this process drives, one statement a heartbeat (./lease-keeper.ts).
  const releaseLease = holdLease(
    deps.db,
    { owner: deps.instanceId, heartbeatMs: deps.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS },
    runId,
    (lease) => {
      if (!lease) ctl.abort('lease_lost');
      else if (lease.cancelRequestedAt) ctl.abort('cancel');
    },
  );
  const owner = { owner: deps.instanceId };

  try {
    for (;;) {
      // Stop first: finishing also writes any tool results still owed.
      if (run.cancelRequestedAt || ctl.signal.reason === 'cancel') return void (await finish(deps, run, 'cancelled', owner));
      if (ctl.signal.aborted) return;
      // Owed tool results next: a resumed run continues exactly where it stopped.
      const calls = owed !== undefined ? owed : await openToolPhase(deps.db, run);
      owed = undefined;
      if (calls) {
        if (!deps.tools) {
          const error = {
            code: 'tools_unavailable',
            message: 'This turn was waiting on tool calls that cannot be run here. Send your message again.',
          };
          return void (await finish(deps, run, 'failed', { ...owner, error }));
        }
        let closed = false;
        const next = await runToolPhase(deps, deps.tools, run, calls, ctl.signal, plan, (m) => {
          history.append(m);
          closed = true;
        });
        if (!next) return;
        run = next;
        // The step's results were just written: nothing is owed until the next step proposes calls.
        if (closed) owed = null;
        continue;
      }
      if (run.step >= run.maxSteps) return void (await finish(deps, run, 'completed', { stopReason: 'max_steps', ...owner }));
      const next = await advanceStep(deps, run, ctl.signal, plan, tokensChecked, history);
      tokensChecked = false;
      if (!next) return;
      ({ run, owed } = next);
    }
  } catch (err) {
    if (err instanceof LeaseLost) return; // another instance has it now; write nothing more
    console.error(`[run ${runId}] unexpected failure:`, errorSummary(err));
    const latest = await getRun(deps.db, runId).catch(() => null);
    if (latest?.status === 'running' && latest.leaseOwner === deps.instanceId) {
      await finish(deps, latest, 'failed', {
        ...owner,
        error: { code: 'internal', message: 'Switchboard hit an unexpected error while running this turn. Try again.' },
      }).catch(() => {});
    }
  } finally {
    releaseLease();
    localRuns.delete(runId);
  }
}

/** A step that did not end the run: the run to continue with, and the calls it proposed (null: none, nothing owed). */
interface SteppedRun {
  run: RunRow;
  owed: ToolCallRow[] | null;
}

/** One model call and what follows from it. Returns the run to continue with, or null when it ended. */
async function advanceStep(
  deps: EngineDeps,
  run: RunRow,
  signal: AbortSignal,
  plan: string | null,
  tokensChecked: boolean,
  history: DriveHistory,
): Promise<SteppedRun | null> {
  // One read of what the step must know: the tool-state revision, today's tokens, stored results,
  // taint, and the person's instructions (an edit applies from the next step).
  const state = await readStepState(deps.db, run.userId, run.conversationId);
  if (!state) return null; // the conversation was deleted (its runs with it)
  // The plan's model tokens for today: a turn that reached them stops before its next model call.
  const reached = tokensChecked ? null : tokensReached(state.tokensToday, plan);
  if (reached) {
    const error = { code: `rate_limited:${reached.limit}`, message: reached.message };
    await finish(deps, run, 'failed', { owner: deps.instanceId, error });
    return null;
  }
  const offer = deps.tools
    ? await offerForStep(
        deps.db,
        deps.tools,
        {
          userId: run.userId,
          conversationId: run.conversationId,
          sessionId: run.sessionId,
          clientId: run.clientId,
          plan,
          toolsRev: state.toolsRev,
        },
        { runId: run.id, toolSearch: deps.toolSearch, hasStoredResults: state.hasStoredResults },
      )
    : NO_TOOLS;
  // An untrusted server's tool descriptions are about to enter the model's context. Nothing else
  // taints the conversation until the step's calls run: what is known now holds for its proposals.
  const taintedBy = await markOfferTaint(deps.db, run.conversationId, offer, { taintedBy: state.taintedBy });
  // The step's number and its name map are written with what it produced (afterStep), not before
  // the model call: until then nothing of the step is stored, and a take-over simply redoes it.
  const step = { number: run.step + 1, nameMap: offer.nameMap, taintedBy, toolsRev: state.toolsRev };
  const messageId = randomUUID();
  // Sent within the model's window: older results stubbed, the oldest turns summarized when needed (./context).
  const target = { conversationId: run.conversationId, runId: run.id, messageId };
  const sent = await streamFittedStep(deps, run, history, offer, target, signal, state.instructions);
  return afterStep(deps, run, { ...step, nameMap: sent.offer.nameMap }, sent.offer, messageId, sent.outcome, signal, history);
}

async function afterStep(
  deps: EngineDeps,
  run: RunRow,
  step: { number: number; nameMap: RunRow['nameMap']; taintedBy: string | null; toolsRev: number },
  offer: ToolOffer,
  messageId: string,
  outcome: StepOutcome,
  signal: AbortSignal,
  history: DriveHistory,
): Promise<SteppedRun | null> {
  const owner = deps.instanceId;
  if (outcome.kind === 'aborted') {
    if (signal.reason !== 'cancel') return null; // lease lost: the new owner redoes the step
    await finish(deps, run, 'cancelled', { owner, partial: { messageId, text: outcome.partialText } });
    return null;
  }
  if (outcome.kind === 'error') {
    const error = describeModelError(outcome.error, { baseURL: deps.model.client.baseURL });
    await finish(deps, run, 'failed', { owner, error, partial: { messageId, text: outcome.partialText } });
    return null;
  }

  const content = assistantContentToStore(outcome.content, outcome.stopReason);
  const prior = usageOf(run);
  const usage = {
    inputTokens: prior.inputTokens + (outcome.usage.input_tokens ?? 0),
    outputTokens: prior.outputTokens + (outcome.usage.output_tokens ?? 0),
    cacheCreationInputTokens: prior.cacheCreationInputTokens + (outcome.usage.cache_creation_input_tokens ?? 0),
    cacheReadInputTokens: prior.cacheReadInputTokens + (outcome.usage.cache_read_input_tokens ?? 0),
  };
  const usesTools = outcome.stopReason === 'tool_use';
  const proposed =
    usesTools && deps.tools
      ? proposeCalls(content, offer, {
          runId: run.id,
          conversationId: run.conversationId,
          userId: run.userId,
          step: step.number,
          taintedBy: step.taintedBy,
        })
      : [];
  const message = { id: messageId, role: 'assistant' as const, content, stopReason: outcome.stopReason };
  const events: RunEvent[] = [{ type: 'message.completed', data: { messageId, message } }];
  let inserted: ToolCallRow[] = [];
  const written: MessageRow[] = [];

  const stored = { id: messageId, role: 'assistant' as const, content, runId: run.id, stopReason: outcome.stopReason };
  // Tools asked for where none can run: the answer and an error result for each call, in that order.
  const unrunnable = usesTools && !deps.tools;

  // The message, its calls and their events commit together: a crash cannot leave calls the
  // log never announced. Without calls, the step's writes are one statement (transitionRun).
  const next = await transitionRunWith(
    deps.db,
    deps.events,
    run,
    { step: step.number, nameMap: step.nameMap, usage },
    {
      owner,
      events,
      message: unrunnable ? undefined : stored,
      modelTokens: { userId: run.userId, tokens: stepTokens(outcome.usage) },
      also:
        proposed.length || unrunnable
          ? async (tx) => {
              if (unrunnable) {
                written.push(await appendMessage(tx, { ...stored, conversationId: run.conversationId }));
                written.push(
                  await appendMessage(tx, {
                    conversationId: run.conversationId,
                    role: 'user',
                    content: unavailableToolResults(content),
                    runId: run.id,
                  }),
                );
              }
              inserted = await insertToolCalls(tx, proposed);
              for (const row of inserted) {
                events.push({ type: 'tool_call.proposed', data: { toolCall: toToolCallView(row) } });
                if (row.status === 'pending_approval')
                  events.push({ type: 'tool_call.approval_requested', data: { toolCall: toToolCallView(row) } });
              }
            }
          : undefined,
      // Calls rejected on the spot (not offered, invalid input, not granted) end here: logged with them.
      after: (tx, stored) => auditEndedCalls(tx, deps, inserted, new Map([[run.conversationId, stored.conversationTitle]])),
    },
  );
  if (next.message) written.unshift(next.message);
  // Committed: the next step sends these without reading them back.
  for (const m of written) history.append(m);
  // The step's calls are owed their results (when it could make any); nothing else is.
  if (usesTools) return { run: next.run, owed: deps.tools ? inserted : null };
  if (outcome.stopReason === 'pause_turn') return { run: next.run, owed: null };
  await finish(deps, next.run, 'completed', { owner, stopReason: outcome.stopReason, owed: null });
  return null;
}

/** Every token the model reports for a step (cache writes and reads included), for the plan's daily count. */
function stepTokens(usage: Anthropic.Usage): number {
  return (
    (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0)
  );
}
