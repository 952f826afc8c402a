import type { DemoReply, ReplyBlock } from './types';
import { countWords, splitWords } from './words';

// Turns a decided reply into exactly what the real Messages API puts on the
// wire: a Message object for `stream: false`, or the SSE event sequence for
// `stream: true`. Pure — pacing and cancellation live in sse.ts.

export type MessageMeta = {
  id: string;
  model: string;
  /** Input tokens not read from nor written to the prompt cache. */
  inputTokens: number;
  /** What the prompt cache wrote and read for this request (prompt-cache.ts); none when absent. */
  cache?: { creationTokens: number; readTokens: number };
};

/** One SSE event. `pause` marks where the pacer waits `delayMs` first. */
export type WireEvent = { event: string; data: unknown; pause: boolean };

/** Where `[demo:fail-midstream]` breaks the stream: after this many text words. */
export const FAIL_AFTER_WORDS = 3;

export function outputTokens(reply: DemoReply): number {
  return reply.blocks.reduce(
    (sum, b) => sum + (b.type === 'text' ? countWords(b.text) : b.type === 'thinking' ? countWords(b.thinking) : 0),
    0,
  );
}

function usage(meta: MessageMeta, outputTokens: number) {
  return {
    input_tokens: meta.inputTokens,
    cache_creation_input_tokens: meta.cache?.creationTokens ?? 0,
    cache_read_input_tokens: meta.cache?.readTokens ?? 0,
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function wireBlock(block: ReplyBlock) {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
  }
}

/** How a block starts on the wire (its content then comes in deltas), and those deltas. */
function streamedBlock(block: ReplyBlock): { start: unknown; deltas: unknown[] } {
  switch (block.type) {
    case 'text':
      return { start: { type: 'text', text: '' }, deltas: splitWords(block.text).map((text) => ({ type: 'text_delta', text })) };
    case 'tool_use':
      return {
        start: { ...wireBlock(block), input: {} },
        deltas: jsonChunks(JSON.stringify(block.input)).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      };
    case 'thinking':
      return {
        start: { type: 'thinking', thinking: '', signature: '' },
        deltas: [
          ...splitWords(block.thinking).map((thinking) => ({ type: 'thinking_delta', thinking })),
          { type: 'signature_delta', signature: block.signature },
        ],
      };
    case 'redacted_thinking':
      return { start: wireBlock(block), deltas: [] };
  }
}

/** The non-streaming response body. */
export function toMessage(reply: DemoReply, meta: MessageMeta) {
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content: reply.blocks.map(wireBlock),
    stop_reason: reply.stopReason,
    stop_sequence: null,
    usage: usage(meta, outputTokens(reply)),
  };
}

/**
 * The streaming events, in the API's order:
 * message_start, ping, then per block content_block_start /
 * content_block_delta… / content_block_stop, then message_delta and
 * message_stop. With `failMidstream` the list ends early with a `fail` marker.
 */
export function toStreamEvents(reply: DemoReply, meta: MessageMeta): Array<WireEvent | { fail: true }> {
  const events: Array<WireEvent | { fail: true }> = [];
  const push = (event: string, data: unknown, pause = false) => events.push({ event, data, pause });
  let deltas = 0;
  let wordsSent = 0;

  push('message_start', {
    type: 'message_start',
    message: {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(meta, 0),
    },
  });
  push('ping', { type: 'ping' });

  for (const [index, block] of reply.blocks.entries()) {
    const { start, deltas: pieces } = streamedBlock(block);
    push('content_block_start', { type: 'content_block_start', index, content_block: start });

    for (const delta of pieces) {
      if (reply.failMidstream && block.type === 'text' && wordsSent >= FAIL_AFTER_WORDS) {
        events.push({ fail: true });
        return events;
      }
      // The first delta goes out at once; every later one waits (word pacing).
      push('content_block_delta', { type: 'content_block_delta', index, delta }, deltas > 0);
      deltas++;
      if (block.type === 'text') wordsSent++;
    }
    push('content_block_stop', { type: 'content_block_stop', index });
  }

  // A reply shorter than the break point still has to break: that is the trigger's promise.
  if (reply.failMidstream) {
    events.push({ fail: true });
    return events;
  }

  push('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: reply.stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens(reply) },
  });
  push('message_stop', { type: 'message_stop' });
  return events;
}

/** Splits tool input JSON into about three pieces, like the API's partial JSON. */
function jsonChunks(json: string): string[] {
  if (json.length <= 2) return [json];
  const size = Math.ceil(json.length / 3);
  const chunks: string[] = [];
  for (let i = 0; i < json.length; i += size) chunks.push(json.slice(i, i + size));
  return chunks;
}

/** `event: <name>\ndata: <json>\n\n` — the SSE framing the SDK parses. */
export function encodeEvent(event: WireEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
