import type Anthropic from '@anthropic-ai/sdk';

import { contentToParts, imagePlaceholder, type Part } from './result-parts';
import { checkToolSchema, describeValidationError } from './schema-guard';
import type { McpCallResult } from './types';

/**
 * An MCP tool result → the `tool_result` block the model sees. Server output is fenced in
 * `<tool_output server=… tool=…>` so the model can tell it from instructions (and a closing
 * tag inside it is escaped); our own notes — truncation, a structured output that broke its
 * schema — sit outside the fence. Long text is cut to a budget, and the whole text is handed
 * back so the engine can store it and let the model page through it.
 */

export const RESULT_BUDGET_CHARS = 32_000; // ~8k tokens
export const RESULT_HARD_CAP_CHARS = 5_000_000;

export interface ToToolResultInput {
  toolUseId: string;
  serverName: string;
  tool: string;
  outcome: McpCallResult;
  outputSchema?: Record<string, unknown>;
  budgetChars?: number;
  hardCapChars?: number;
  /** The note after a cut result; `shown` is also the offset where the rest starts. */
  truncationNote?: (shown: number, total: number) => string;
}

export interface ToToolResultOutput {
  block: Anthropic.ToolResultBlockParam;
  /** The whole result as text (images as placeholders), capped at the hard cap. */
  fullText?: string;
  /** Characters of the whole result, before any cut. */
  totalChars: number;
  truncated: boolean;
}

type ContentBlock = Anthropic.TextBlockParam | Anthropic.ImageBlockParam;

const SEPARATOR = '\n';

export const defaultTruncationNote = (shown: number, total: number) => `[… result truncated: ${shown} of ${total} characters shown.]`;

/** The marker that points the model at the host's paging tool. */
export function readMoreNote(hostToolName: string, callId: string) {
  return (shown: number, total: number) =>
    `[… result truncated: ${shown} of ${total} characters shown. Call ${hostToolName} with ${JSON.stringify({ callId, offset: shown })} ` +
    `for more.]`;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A server cannot end the fence early (or open a fake one) by writing the tag itself. */
export function escapeToolOutput(text: string): string {
  return text.replace(/<(\/?\s*tool_output)/gi, '&lt;$1');
}

export function fenceOpen(serverName: string, tool: string): string {
  return `<tool_output server="${escapeAttr(serverName)}" tool="${escapeAttr(tool)}">`;
}
export const FENCE_CLOSE = '</tool_output>';

/** Notes about the structured output, said by Switchboard (outside the fence). */
function structuredNotes(input: ToToolResultInput, parts: Part[]): string[] {
  const { outcome, outputSchema } = input;
  const structured = outcome.structuredContent;
  // The spec asks a server to mirror its structured output in a text block, and the SDK treats any
  // text block the tool wrote as that mirror (it adds the JSON only when there is none). Servers
  // mirror in their own form — the filesystem server sends a file as text and `{ content: file }`
  // — so a JSON-equality test would send the same data twice. The JSON goes to the model only
  // when no text block renders the result.
  if (structured !== undefined && !parts.some((p) => p.kind === 'text')) {
    const json = JSON.stringify(structured);
    if (json !== undefined) parts.push({ kind: 'text', text: json });
  }
  if (!outputSchema || outcome.isError) return [];
  if (structured === undefined) return [`[Switchboard: "${input.tool}" declares an output schema but returned no structured output.]`];
  const check = checkToolSchema(outputSchema);
  if (!check.ok) return [`[Switchboard: the structured output could not be checked: ${check.reason}.]`];
  if (check.validate(structured)) return [];
  const why = describeValidationError(check.validate.errors ?? [], structured);
  return [`[Switchboard: the structured output does not match the tool's output schema, so treat it with care. ${why}]`];
}

export function toToolResult(input: ToToolResultInput): ToToolResultOutput {
  const budget = input.budgetChars ?? RESULT_BUDGET_CHARS;
  const hardCap = input.hardCapChars ?? RESULT_HARD_CAP_CHARS;
  const note = input.truncationNote ?? defaultTruncationNote;
  const isError = input.outcome.isError === true;

  const parts = contentToParts(input.outcome.content);
  const after = structuredNotes(input, parts);
  if (parts.length === 0) {
    parts.push({ kind: 'text', text: isError ? '(the tool reported an error without a message)' : '(no output)' });
  }

  const segments = parts.map((p) => (p.kind === 'text' ? p.text : imagePlaceholder(p)));
  const total = segments.reduce((n, s) => n + s.length, 0) + SEPARATOR.length * (segments.length - 1);

  // Walk the parts until the budget is spent; `pos` counts characters of the full text.
  const shownParts: Part[] = [];
  let pos = 0;
  let truncated = false;
  for (const [i, part] of parts.entries()) {
    const sep = i === 0 ? 0 : SEPARATOR.length;
    const seg = segments[i]!;
    if (pos + sep + seg.length <= budget) {
      shownParts.push(part);
      pos += sep + seg.length;
      continue;
    }
    truncated = true;
    if (part.kind === 'text' && pos + sep < budget) {
      let cut = budget - pos - sep;
      if (/[\uD800-\uDBFF]/.test(seg.charAt(cut - 1))) cut--; // never split a surrogate pair
      shownParts.push({ kind: 'text', text: seg.slice(0, cut) });
      pos += sep + cut;
    }
    break;
  }

  const blocks = toBlocks(shownParts, input.serverName, input.tool);
  const tail = [...after, ...(truncated ? [note(pos, total)] : [])];
  if (tail.length) blocks.push({ type: 'text', text: tail.join('\n') });

  let fullText = segments.join(SEPARATOR);
  if (fullText.length > hardCap) {
    fullText = `${fullText.slice(0, hardCap)}\n[… stored result cut at ${hardCap} of ${total} characters.]`;
  }

  return {
    block: { type: 'tool_result', tool_use_id: input.toolUseId, content: blocks, ...(isError && { is_error: true }) },
    fullText,
    totalChars: total,
    truncated,
  };
}

/** Adjacent text parts merge into one block; the fence opens on the first and closes on the last. */
function toBlocks(parts: Part[], serverName: string, tool: string): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  let text: string[] = [fenceOpen(serverName, tool)];
  const flush = () => {
    if (text.length) blocks.push({ type: 'text', text: text.join(SEPARATOR) });
    text = [];
  };
  for (const part of parts) {
    if (part.kind === 'text') {
      text.push(escapeToolOutput(part.text));
    } else {
      flush();
      blocks.push({ type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } });
    }
  }
  text.push(FENCE_CLOSE);
  flush();
  return blocks;
}

/** For failures that never produced a result: timeouts, denials, transport errors. */
export function errorToolResult(toolUseId: string, message: string): Anthropic.ToolResultBlockParam {
  return { type: 'tool_result', tool_use_id: toolUseId, is_error: true, content: [{ type: 'text', text: message }] };
}
