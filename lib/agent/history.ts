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
 * empty text blocks and empty messages are dropped.
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
  return out;
}
