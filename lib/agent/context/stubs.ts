import type Anthropic from '@anthropic-ai/sdk';

import type { StoredMessage } from '../history';
import { READ_RESULT_TOOL_NAME } from '../read-result-tool';
import { estimateBlockTokens } from '../token-estimate';

/** A result this small is sent whole: its stub would save next to nothing. */
export const STUB_MIN_TOKENS = 60;

/**
 * The first way to make room: older tool results are sent as a short stub naming the call, and
 * the model can read the original again with `switchboard__read_result` (it pages through the
 * stored result). The results are grouped, oldest first, into chunks of about `chunkTokens`,
 * and whole chunks are stubbed: which results are stubbed depends only on the messages before
 * them, so the next step and the next turn stub the same ones (the cached prefix holds) until
 * one more chunk is needed. The last message is never stubbed: the model has not read it yet.
 */
export function stubChunks(messages: readonly StoredMessage[], chunkTokens: number): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const m of messages.slice(0, -1)) {
    if (m.role !== 'user') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_result' || estimateBlockTokens(b) < STUB_MIN_TOKENS) continue;
      current.push(b.tool_use_id);
      size += estimateBlockTokens(b);
      if (size >= chunkTokens) {
        chunks.push(current);
        current = [];
        size = 0;
      }
    }
  }
  if (current.length) chunks.push(current);
  return chunks;
}

// One stub object per original block, so the estimate of a stubbed history is remembered too.
const stubs = new WeakMap<object, Anthropic.ToolResultBlockParam>();

/** The messages with the results of `stubbed` (tool_use ids) replaced by their stubs. */
export function withStubs<M extends StoredMessage>(messages: readonly M[], stubbed: ReadonlySet<string>): M[] {
  if (!stubbed.size) return [...messages];
  const names = new Map<string, string>();
  return messages.map((m) => {
    if (m.role === 'assistant') {
      for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
      return m;
    }
    if (!m.content.some((b) => b.type === 'tool_result' && stubbed.has(b.tool_use_id))) return m;
    const content = m.content.map((b) =>
      b.type === 'tool_result' && stubbed.has(b.tool_use_id) ? stubOf(b, names.get(b.tool_use_id) ?? 'a tool') : b,
    );
    return { ...m, content };
  });
}

function stubOf(block: Anthropic.ToolResultBlockParam, toolName: string): Anthropic.ToolResultBlockParam {
  let stub = stubs.get(block);
  if (!stub) {
    const text =
      `[Switchboard left out this result of ${toolName} to make room in the context window. It is still stored: ` +
      `call ${READ_RESULT_TOOL_NAME} with {"callId": "${block.tool_use_id}", "offset": 0} to read it again.]`;
    stub = {
      type: 'tool_result',
      tool_use_id: block.tool_use_id,
      content: [{ type: 'text', text }],
      ...(block.is_error ? { is_error: true } : {}),
    };
    stubs.set(block, stub);
  }
  return stub;
}
