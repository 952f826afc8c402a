import type Anthropic from '@anthropic-ai/sdk';

/** The API refuses a request with more `cache_control` breakpoints than this (system, tools and messages together). */
export const MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

type System = string | Anthropic.TextBlockParam[] | undefined;

/**
 * Prompt caching across steps and turns: the prefix of a request (tools, then system, then
 * messages) is cached up to each breakpoint, so a long conversation pays for it once and reads it
 * after. Breakpoints go, within the API's four and after any the system prompt has:
 * 1. on the last tool (the tool list changes rarely);
 * 2. on the last message — the newest stable prefix: the next step sends it again unchanged and
 *    reads it from the cache;
 * 3. on the message that ended the previous request (two back: the step's answer and its tool
 *    results, or the last answer and the new question, came after it), which that request wrote,
 *    so this one reads it even when the step added more than the cache looks back over.
 * Breakpoints already on tools or messages are moved, never added to. Thinking blocks cannot
 * carry one, nor can empty text: the nearest block before them in the message does. Nothing
 * given is changed: the marked blocks are copies.
 */
export function withCacheBreakpoints<R extends { system?: System; tools?: Anthropic.ToolUnion[]; messages: Anthropic.MessageParam[] }>(
  request: R,
): R {
  let left = MAX_CACHE_BREAKPOINTS - systemBreakpoints(request.system);
  let tools = request.tools?.map(unmarked);
  if (tools?.length && left > 0) {
    tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: EPHEMERAL } as Anthropic.ToolUnion;
    left--;
  }
  if (tools && !tools.length) tools = undefined;
  const messages = request.messages.map((m): Anthropic.MessageParam =>
    typeof m.content === 'string'
      ? m
      : ({ ...m, content: (m.content as Anthropic.ContentBlockParam[]).map(unmarked) } as Anthropic.MessageParam),
  );
  for (const index of [messages.length - 1, messages.length - 3]) {
    if (left <= 0 || index < 0) break;
    const marked = markLastCacheable(messages[index]!);
    if (marked) {
      messages[index] = marked;
      left--;
    }
  }
  const out = { ...request, messages };
  if (tools) out.tools = tools;
  else delete out.tools;
  return out;
}

/** Breakpoints in a request: for tests and for the count above. */
export function countCacheBreakpoints(request: { system?: System; tools?: readonly object[]; messages: Anthropic.MessageParam[] }): number {
  let n = systemBreakpoints(request.system);
  for (const t of request.tools ?? []) if ('cache_control' in t && t.cache_control) n++;
  for (const m of request.messages)
    if (typeof m.content !== 'string') for (const b of m.content) if ('cache_control' in b && b.cache_control) n++;
  return n;
}

function systemBreakpoints(system: System): number {
  return Array.isArray(system) ? system.filter((b) => b.cache_control).length : 0;
}

function unmarked<T extends object>(item: T): T {
  if (!('cache_control' in item) || !item.cache_control) return item;
  const copy = { ...item } as T & { cache_control?: unknown };
  delete copy.cache_control;
  return copy;
}

function markLastCacheable(message: Anthropic.MessageParam): Anthropic.MessageParam | null {
  if (typeof message.content === 'string') {
    return message.content ? { ...message, content: [{ type: 'text', text: message.content, cache_control: EPHEMERAL }] } : null;
  }
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i]!;
    if (block.type === 'thinking' || block.type === 'redacted_thinking' || (block.type === 'text' && !block.text)) continue;
    const content = [...message.content] as Anthropic.ContentBlockParam[];
    content[i] = { ...block, cache_control: EPHEMERAL } as Anthropic.ContentBlockParam;
    return { ...message, content } as Anthropic.MessageParam;
  }
  return null;
}
