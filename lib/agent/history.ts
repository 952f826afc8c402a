import type Anthropic from '@anthropic-ai/sdk';

type MessageParam = Anthropic.MessageParam;
type Block = Anthropic.ContentBlockParam;

export interface StoredMessage {
  role: 'user' | 'assistant';
  content: unknown;
}

/**
 * The stored conversation as a Messages API history. Adjacent messages of the same role are
 * merged (a failed run leaves a user message with no answer; the next one follows it), and
 * empty assistant messages are dropped.
 */
export function toMessageParams(stored: StoredMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of stored) {
    const blocks = toBlocks(m.content);
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) {
      last.content = [...(last.content as Block[]), ...blocks];
    } else {
      out.push({ role: m.role, content: blocks });
    }
  }
  return out;
}

function toBlocks(content: unknown): Block[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  return (content as Block[]).filter((b) => !(b.type === 'text' && !b.text));
}
