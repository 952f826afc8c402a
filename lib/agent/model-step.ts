import Anthropic from '@anthropic-ai/sdk';

import type { StoredThinking } from '@/db/stored-json';

import { withCacheBreakpoints } from './context/cache-breakpoints';
import { DeltaCoalescer } from './delta-coalescer';
import { DEFAULT_SYSTEM_PROMPT, type EngineDeps } from './deps';
import { retryDelayMs, retryingMessage } from './model-retry';
import { observe, type ModelStepOutcome } from './observe';
import { outputRequest } from './run-model';
import { stepSystem, type StepInstructions } from './step-system';

/** What one step asks the model: the history, the tools offered, the run's thinking setting and the person's instructions. */
export interface StepRequest {
  messages: Anthropic.MessageParam[];
  tools: Anthropic.ToolUnion[];
  thinking?: StoredThinking | null;
  instructions?: StepInstructions | null;
}

export type StepOutcome =
  | { kind: 'message'; content: Anthropic.ContentBlock[]; stopReason: string; usage: Anthropic.Usage }
  | { kind: 'aborted'; partialText: string[] }
  | { kind: 'error'; error: unknown; partialText: string[] };

/**
 * One model call, streamed: text deltas are forwarded as they come (live and coalesced into
 * the log). Never throws; an abort (Stop, lost lease) or a failure comes back as an outcome
 * together with the text streamed so far. A transient failure before the first byte (429, 529,
 * 5xx, no connection) is tried again after the server's `retry-after` or a backoff, within a cap
 * (./model-retry.ts), and the person is told (`run.retrying`).
 */
export async function streamModelStep(
  deps: EngineDeps,
  target: { conversationId: string; runId: string; messageId: string },
  request: StepRequest,
  signal: AbortSignal,
): Promise<StepOutcome> {
  let waitedMs = 0;
  for (let attempt = 1; ; attempt++) {
    const outcome = await streamOnce(deps, target, request, signal);
    if (outcome.kind !== 'error') return outcome;
    const failed = { kind: 'error' as const, error: outcome.error, partialText: outcome.partialText };
    if (outcome.received) return failed;
    const delayMs = retryDelayMs(outcome.error, attempt, waitedMs, deps.modelRetry);
    if (delayMs === null) return failed;
    await deps.events.persist(target.conversationId, target.runId, 'run.retrying', {
      attempt,
      delayMs,
      status: outcome.error instanceof Anthropic.APIError ? (outcome.error.status ?? null) : null,
      message: retryingMessage(outcome.error, delayMs),
    });
    if (!(await sleep(delayMs, signal))) return { kind: 'aborted', partialText: [] };
    waitedMs += delayMs;
  }
}

/**
 * The request of a step as it is sent (and counted, ./context/fit.ts): the model, `max_tokens`
 * with room for thinking, the system prompt with the person's instructions (./step-system.ts), the
 * history and the tools, with the prompt cache's breakpoints on the tool list and the history
 * (./context/cache-breakpoints.ts).
 */
export function modelRequest(deps: EngineDeps, request: StepRequest) {
  return withCacheBreakpoints({
    model: deps.model.model,
    // The configured length within the model's own limit (./run-model.ts).
    ...outputRequest(deps.model, request.thinking),
    system: stepSystem(deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT, request.instructions),
    messages: request.messages,
    ...(request.tools.length ? { tools: request.tools } : {}),
  });
}

/** Waits, or stops waiting at once when the step is aborted (Stop, lost lease): false then. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** One try. `received`: whether any of the answer arrived (after that a failure is not retried). */
type TryOutcome = Exclude<StepOutcome, { kind: 'error' }> | { kind: 'error'; error: unknown; partialText: string[]; received: boolean };

async function streamOnce(
  deps: EngineDeps,
  target: { conversationId: string; runId: string; messageId: string },
  request: StepRequest,
  signal: AbortSignal,
): Promise<TryOutcome> {
  let received = false;
  const coalescer = new DeltaCoalescer(deps.events, target);
  const texts: string[] = [];
  const started = performance.now();
  let firstDeltaMs: number | null = null;
  // Timed to the end of the stream, not of the writes after it.
  const observed = (outcome: ModelStepOutcome, ms: number) => observe(deps, (o) => o.modelStep(ms, firstDeltaMs, outcome));
  try {
    const stream = deps.model.client.messages.stream(modelRequest(deps, request), { signal });
    for await (const ev of stream) {
      received = true;
      if (ev.type === 'content_block_delta') firstDeltaMs ??= performance.now() - started;
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') {
        texts[ev.index] = (texts[ev.index] ?? '') + ev.delta.text;
        coalescer.push(ev.index, ev.delta.text);
      }
      // Thinking streams too (the page folds it); it is not partial answer text to keep on a failure.
      if (ev.type === 'content_block_delta' && ev.delta.type === 'thinking_delta') coalescer.push(ev.index, ev.delta.thinking, 'thinking');
    }
    const final = await stream.finalMessage();
    observed('message', performance.now() - started);
    await coalescer.flush();
    return { kind: 'message', content: final.content, stopReason: final.stop_reason ?? 'end_turn', usage: final.usage };
  } catch (error) {
    const ms = performance.now() - started;
    // A lost lease means another instance redoes this step: its text must not be mixed in.
    if (signal.reason !== 'lease_lost') await coalescer.flush().catch(() => {});
    if (signal.aborted) {
      observed('aborted', ms);
      return { kind: 'aborted', partialText: texts.filter(Boolean) };
    }
    observed('error', ms);
    return { kind: 'error', error, partialText: texts.filter(Boolean), received };
  } finally {
    coalescer.dispose();
  }
}

/**
 * What is stored for the assistant turn. Thinking signatures and tool_use blocks are kept as the
 * API returned them; a `tool_use` is only kept when the turn really stopped to use tools, since
 * a call cut off by max_tokens or Stop has no result and would make the history invalid.
 */
export function assistantContentToStore(content: Anthropic.ContentBlock[], stopReason: string): Anthropic.ContentBlockParam[] {
  const blocks = content as unknown as Anthropic.ContentBlockParam[];
  const kept = stopReason === 'tool_use' ? blocks : blocks.filter((b) => b.type !== 'tool_use');
  return kept.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : b));
}

export function partialTextContent(partialText: string[]): Anthropic.TextBlockParam[] {
  return partialText.filter((t) => t.trim()).map((text) => ({ type: 'text', text }));
}
