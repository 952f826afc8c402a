import type Anthropic from '@anthropic-ai/sdk';

import { DeltaCoalescer } from './delta-coalescer';
import { DEFAULT_MAX_TOKENS, DEFAULT_SYSTEM_PROMPT, type EngineDeps } from './deps';
import { observe, type ModelStepOutcome } from './observe';

export type StepOutcome =
  | { kind: 'message'; content: Anthropic.ContentBlock[]; stopReason: string; usage: Anthropic.Usage }
  | { kind: 'aborted'; partialText: string[] }
  | { kind: 'error'; error: unknown; partialText: string[] };

/**
 * One model call, streamed: text deltas are forwarded as they come (live and coalesced into
 * the log). Never throws; an abort (Stop, lost lease) or a failure comes back as an outcome
 * together with the text streamed so far.
 */
export async function streamModelStep(
  deps: EngineDeps,
  target: { conversationId: string; runId: string; messageId: string },
  request: { messages: Anthropic.MessageParam[]; tools: Anthropic.ToolUnion[] },
  signal: AbortSignal,
): Promise<StepOutcome> {
  const coalescer = new DeltaCoalescer(deps.events, target);
  const texts: string[] = [];
  const started = performance.now();
  let firstDeltaMs: number | null = null;
  // Timed to the end of the stream, not of the writes after it.
  const observed = (outcome: ModelStepOutcome, ms: number) => observe(deps, (o) => o.modelStep(ms, firstDeltaMs, outcome));
  try {
    const stream = deps.model.client.messages.stream(
      {
        model: deps.model.model,
        max_tokens: deps.model.maxTokens ?? DEFAULT_MAX_TOKENS,
        system: deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
        messages: request.messages,
        ...(request.tools.length ? { tools: request.tools } : {}),
      },
      { signal },
    );
    for await (const ev of stream) {
      if (ev.type === 'content_block_delta') firstDeltaMs ??= performance.now() - started;
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') {
        texts[ev.index] = (texts[ev.index] ?? '') + ev.delta.text;
        coalescer.push(ev.index, ev.delta.text);
      }
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
    return { kind: 'error', error, partialText: texts.filter(Boolean) };
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
