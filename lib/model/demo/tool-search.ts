import { argsFromSchema } from './schema-args';
import { findToolMentions, type ToolMention } from './tool-mentions';
import { toolResultBlocks } from './tool-results';
import type { DemoReply, OfferedTool, ReplyToolUseBlock, RequestMessage } from './types';

// How the demo model uses a host's tool search, the way a real model would: when a tool the person
// names is not among the offered tools but a search tool is, it searches for it first, and on its
// next step calls the tools the search made available. Two steps at most, so it cannot loop.

/**
 * The search tool a host offers when it has too many tools to list (Switchboard's
 * `switchboard__search_tools`, input `{ query, limit? }`). The demo model knows it by name, as a
 * real model reads it from the tool list; lib/model imports nothing of the engine.
 */
export const SEARCH_TOOLS_NAME = 'switchboard__search_tools';

type NewId = (n: number) => string;

/**
 * After a person's message: a search per named tool that is not offered, when the search tool is.
 * The named tools that are offered wait for the next step too, so each is called once. Null when
 * there is nothing to search for.
 */
export function searchFirst(mentions: ToolMention[], tools: OfferedTool[], newId: NewId): DemoReply | null {
  const offered = new Set(tools.map((t) => t.name));
  if (!offered.has(SEARCH_TOOLS_NAME)) return null;
  const missing = mentions.filter((m) => !offered.has(m.name));
  if (missing.length === 0) return null;
  const calls: ReplyToolUseBlock[] = missing.map((m, i) => ({
    type: 'tool_use',
    id: newId(i + 1),
    name: SEARCH_TOOLS_NAME,
    input: { query: m.name },
  }));
  const names = missing.map((m) => m.name).join(', ');
  return {
    blocks: [{ type: 'text', text: `${names} is not in my tool list; I'll search for it.` }, ...calls],
    stopReason: 'tool_use',
    failMidstream: false,
  };
}

/**
 * After the results of searches only: every tool the person's message named that is offered now
 * becomes a call. Null when the last results are not all searches, or nothing named is offered yet
 * (the demo then quotes the search results, as after any tool).
 */
export function callFound(messages: RequestMessage[], tools: OfferedTool[], newId: NewId): DemoReply | null {
  const results = toolResultBlocks(messages.at(-1));
  const asked = messages.at(-2);
  if (!results.length || asked?.role !== 'assistant' || !Array.isArray(asked.content)) return null;
  const searchIds = new Set(asked.content.filter((b) => b?.type === 'tool_use' && b.name === SEARCH_TOOLS_NAME).map((b) => b.id));
  if (!results.every((r) => searchIds.has(r.tool_use_id))) return null;

  const offered = new Map(tools.map((t) => [t.name, t]));
  const found = findToolMentions(personText(messages), [...offered.keys()]).filter(
    (m) => m.name !== SEARCH_TOOLS_NAME && offered.has(m.name),
  );
  if (!found.length) return null;
  const calls: ReplyToolUseBlock[] = found.map((m, i) => ({
    type: 'tool_use',
    id: newId(i + 1),
    name: m.name,
    input: m.args ?? argsFromSchema(offered.get(m.name)?.input_schema),
  }));
  const text = `The search made ${calls.map((c) => c.name).join(', ')} available; I'll call ${calls.length === 1 ? 'it' : 'them'} now.`;
  return { blocks: [{ type: 'text', text }, ...calls], stopReason: 'tool_use', failMidstream: false };
}

/** The text of the person's last message: the latest user message with text (tool results have none). */
function personText(messages: RequestMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    const text = m.content
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text)
      .join('\n');
    if (text) return text;
  }
  return '';
}
