import type Anthropic from '@anthropic-ai/sdk';

/**
 * Why `messages` is not a history the Messages API accepts, or null when it is: it starts with
 * the person, roles alternate, every `tool_use` has its `tool_result` in the very next message,
 * and every `tool_result` answers a `tool_use` of the message before it.
 */
export function historyProblem(messages: readonly Anthropic.MessageParam[]): string | null {
  if (messages[0]?.role !== 'user') return 'the history does not start with a user message';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (i > 0 && messages[i - 1]!.role === m.role) return `messages ${i - 1} and ${i} are both ${m.role}`;
    const blocks = typeof m.content === 'string' ? [] : m.content;
    if (m.role === 'assistant') {
      const next = messages[i + 1];
      const answered = new Set(
        next && typeof next.content !== 'string' ? next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : [],
      );
      for (const b of blocks)
        if (b.type === 'tool_use' && next && !answered.has(b.id)) return `tool_use ${b.id} (message ${i}) has no tool_result`;
    } else {
      const prev = messages[i - 1];
      const asked = new Set(
        prev && typeof prev.content !== 'string' ? prev.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [],
      );
      for (const b of blocks)
        if (b.type === 'tool_result' && !asked.has(b.tool_use_id)) return `tool_result ${b.tool_use_id} (message ${i}) answers no tool_use`;
    }
  }
  return null;
}
