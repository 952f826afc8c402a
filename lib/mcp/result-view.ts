import type Anthropic from '@anthropic-ai/sdk';

import { FENCE_CLOSE } from './to-tool-result';

/**
 * The person's view of a tool result, read back from the `tool_result` block the model got
 * (lib/mcp/to-tool-result.ts builds that block). What the tool wrote sits inside the
 * `<tool_output>` fence and becomes `output` and `image` parts, unescaped; what Switchboard
 * wrote around it (a truncation marker, an edit note, an error sentence) becomes `note` parts.
 * The browser gets these parts and never parses the model's wrapper itself.
 */

export type ResultPart =
  { kind: 'output'; text: string } | { kind: 'image'; mediaType: string; data: string } | { kind: 'note'; text: string };

export interface ResultView {
  isError: boolean;
  parts: ResultPart[];
  /** Characters of the whole result (the model may have had only part of it). */
  chars: number;
  /** The model got only the first part; the rest is stored for it to page through. */
  truncated: boolean;
}

const FENCE_OPEN = /^<tool_output server="[^"]*" tool="[^"]*">\n?/;
const FENCE_END = new RegExp(`\\n?${FENCE_CLOSE.replace('/', '\\/')}$`);

/** The inverse of `escapeToolOutput`: the person sees what the tool wrote. */
function unescapeToolOutput(text: string): string {
  return text.replace(/&lt;(\/?\s*tool_output)/gi, '<$1');
}

export function resultView(block: Anthropic.ToolResultBlockParam, size?: { chars: number | null; truncated: boolean | null }): ResultView {
  const blocks = typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : (block.content ?? []);
  const parts: ResultPart[] = [];
  let inside = false;
  for (const b of blocks) {
    if (b.type === 'image') {
      if (b.source.type === 'base64') parts.push({ kind: 'image', mediaType: b.source.media_type, data: b.source.data });
      continue;
    }
    if (b.type !== 'text') continue;
    let text = b.text;
    let wasInside: boolean = inside;
    if (!inside && FENCE_OPEN.test(text)) {
      text = text.replace(FENCE_OPEN, '');
      inside = wasInside = true;
    }
    if (inside && FENCE_END.test(text)) {
      text = text.replace(FENCE_END, '');
      inside = false;
    }
    if (text) parts.push(wasInside ? { kind: 'output', text: unescapeToolOutput(text) } : { kind: 'note', text });
  }
  const shownChars = parts.reduce((n, p) => n + (p.kind === 'image' ? 0 : p.text.length), 0);
  return { isError: block.is_error === true, parts, chars: size?.chars ?? shownChars, truncated: size?.truncated ?? false };
}
