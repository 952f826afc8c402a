import type { RequestBlock, RequestMessage } from './types';

// The demo model's answer after tool results: it quotes every result and
// error, in order, so a person (or a test) can see exactly what came back.
// It never calls another tool here, which is what keeps a host's tool loop
// from running forever against the demo model.

/** Longest quote of one result before it is cut with "…". */
export const MAX_QUOTE_CHARS = 300;

export function toolResultBlocks(message: RequestMessage | undefined): RequestBlock[] {
  if (!message || message.role !== 'user' || !Array.isArray(message.content)) return [];
  return message.content.filter((block) => block?.type === 'tool_result');
}

/**
 * `Tool results:` then one line per result:
 * `- <tool name> returned: <text>` or `- <tool name> failed: <text>` (or `- <text>` when the
 * error already begins with the tool's name).
 * Tool names come from the `tool_use` blocks of the assistant message before
 * the results (matched by `tool_use_id`).
 */
export function describeToolResults(results: RequestBlock[], messages: RequestMessage[]): string {
  const names = toolNamesById(messages);
  const lines = results.map((result) => {
    const id = String(result.tool_use_id ?? '');
    const name = names.get(id) ?? `unknown tool (${id || 'no tool_use_id'})`;
    const text = quote(result.content);
    if (result.is_error !== true) return `- ${name} returned: ${text}`;
    // A host's error often names the tool itself ("notes__search timed out: …"): not twice.
    return text.startsWith(`${name} `) ? `- ${text}` : `- ${name} failed: ${text}`;
  });
  return ['Tool results:', ...lines].join('\n');
}

/** Maps tool_use ids to names, from the last assistant message that has any. */
function toolNamesById(messages: RequestMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  // The results answer the nearest earlier assistant turn; older turns are
  // only a fallback for hosts that reorder or merge messages.
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        if (!names.has(block.id)) names.set(block.id, block.name);
      }
    }
  }
  return names;
}

/** One line of quoted result: text blocks joined, `[image]` for images, cut to length. */
function quote(content: RequestBlock['content']): string {
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) text = content.map(describeBlock).filter(Boolean).join(' ');
  else text = '';

  // A host fences results as data (`<tool_output server=… tool=…>…</tool_output>`): the model reads
  // the fence, it does not repeat it to the person.
  text = text.replace(/<tool_output\b[^>]*>|<\/tool_output>/gi, ' ');
  // One line per result: newlines inside a result would break that layout.
  text = text.replace(/\s+/g, ' ').trim();
  if (!text) return '(no content)';
  return text.length > MAX_QUOTE_CHARS ? `${text.slice(0, MAX_QUOTE_CHARS).trimEnd()}…` : text;
}

function describeBlock(block: RequestBlock): string {
  if (block?.type === 'text') return typeof block.text === 'string' ? block.text : '';
  if (block?.type === 'image') return '[image]';
  return `[${typeof block?.type === 'string' ? block.type : 'content'}]`;
}
