import type Anthropic from '@anthropic-ai/sdk';

import type { StoredMessageContent } from '@/db/stored-json';

type Block = Anthropic.ContentBlockParam;

export interface StoredMessage {
  role: 'user' | 'assistant';
  content: StoredMessageContent;
}

/**
 * The stored conversation as a Messages API history. Adjacent messages of the same role are
 * merged (a failed run leaves a user message with no answer; the next one follows it), and
 * empty text blocks and empty messages are dropped. A history that ends with the assistant (an
 * answer cut at max_tokens, sent back for the model to continue) ends without trailing
 * whitespace, which the API refuses in a final assistant message.
 */
export function toMessageParams(stored: StoredMessage[]): Anthropic.MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  for (const m of stored) {
    const blocks = m.content.filter((b) => !(b.type === 'text' && !b.text));
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content = [...last.content, ...blocks];
    else out.push({ role: m.role, content: blocks });
  }
  return withPrefillTrimmed(out);
}

/** The final assistant message's last text block without trailing whitespace (dropped when nothing is left). */
function withPrefillTrimmed(out: { role: 'user' | 'assistant'; content: Block[] }[]): Anthropic.MessageParam[] {
  const last = out.at(-1);
  const block = last?.role === 'assistant' ? last.content.at(-1) : undefined;
  if (!last || block?.type !== 'text' || block.text === block.text.trimEnd()) return out;
  const text = block.text.trimEnd();
  last.content = [...last.content.slice(0, -1), ...(text ? [{ ...block, text }] : [])];
  if (last.content.length === 0) out.pop();
  return out;
}
