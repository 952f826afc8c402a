import { getConversation, type ConversationRow } from '@/db/queries/conversations';
import type { MessageRow } from '@/db/queries/messages';
import { callsAskedOn, listConversationToolCalls } from '@/db/queries/tool-calls';
import type { ToolCallStatus } from '@/db/vocabulary';
import { toToolCallView, type ToolCallView } from '@/lib/agent/tool-call-view';
import { AppError } from '@/lib/http/errors';

import { activePath } from './active-path';
import type { ChatRuntime } from './runtime';

/**
 * One conversation as a file the person keeps: `GET /api/conversations/:id/export`. The JSON
 * document below is versioned and documented here; the Markdown (./export-markdown.ts) is made
 * from it, so both say the same. It carries what the person saw on the page — titles, words, tool
 * calls with their arguments and results — and none of the ids they cannot use (message, run,
 * tool-call or server ids), no secret, no image data, nothing of another user.
 */

export const CONVERSATION_EXPORT_FORMAT = 'switchboard-conversation';
export const CONVERSATION_EXPORT_VERSION = 1;
export const EXPORT_FORMATS = ['md', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A tool result's text is cut past this many characters (an export is for reading, and results can be megabytes). */
export const RESULT_TEXT_MAX = 4000;

export interface ConversationExport {
  format: typeof CONVERSATION_EXPORT_FORMAT;
  version: typeof CONVERSATION_EXPORT_VERSION;
  exportedAt: string;
  conversation: {
    title: string;
    /** The model the conversation is set to now (each answer may have come from another). */
    model: string;
    createdAt: string;
    updatedAt: string;
    /** Continued from someone's share link: its title and when the snapshot was taken. */
    forkedFrom: { title: string; snapshotAt: string } | null;
  };
  messages: ExportedMessage[];
}

export interface ExportedMessage {
  role: 'user' | 'assistant';
  createdAt: string;
  /** A prompt of an MCP server the person ran: this message is its text. */
  prompt?: { server: string; name: string };
  /** Resources the person attached: what the model read of each. */
  attachments?: ExportedAttachment[];
  /** Not the person's words: what these interactive views told the model before their message (MCP Apps). */
  viewContext?: { server: string; tool: string }[];
  parts: ExportedPart[];
  /** Why an answer ended when it was not simply finished: `max_tokens`, `cancelled`, `refusal`… */
  stopReason?: string;
}

export interface ExportedAttachment {
  server: string;
  uri: string;
  name?: string;
  mimeType?: string;
  /** Characters of the resource, and whether the model read only the first part. */
  chars?: number;
  truncated?: boolean;
}

export type ExportedPart =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string | null; redacted: boolean }
  | { type: 'tool_call'; call: ExportedToolCall };

export interface ExportedToolCall {
  /** The server's name and the tool's, or null when the model named a tool that was not offered. */
  server: string | null;
  tool: string | null;
  /** The name the model used (`<namespace>__<tool>`). */
  name: string;
  arguments: Record<string, unknown>;
  status: ToolCallStatus;
  /** Why it was not run or was denied: the policy's or the person's words. */
  reason: string | null;
  result: ExportedResult | null;
}

export interface ExportedResult {
  isError: boolean;
  /** What the tool wrote and what Switchboard noted around it, cut at RESULT_TEXT_MAX characters. */
  text: string;
  /** Characters of the text before the cut, and whether it was cut here. */
  chars: number;
  cut: boolean;
  /** The model itself got only the first part of the result. */
  modelGotPart: boolean;
  /** Images the tool returned, by media type (their data is left out). */
  images: string[];
}

/** The owner's conversation as an export document; another user's is not found. */
export async function exportConversation(rt: ChatRuntime, userId: string, id: string, now = new Date()): Promise<ConversationExport> {
  const conversation = await getConversation(rt.handle.db, userId, id);
  if (!conversation) throw new AppError('not_found', 'conversation', `No conversation with id "${id}".`);
  const [messages, calls] = await Promise.all([activePath(rt.handle.db, id), listConversationToolCalls(rt.handle.db, id)]);
  return buildConversationExport(conversation, messages, callsAskedOn(messages, calls).map(toToolCallView), now);
}

/** The document from what is stored (pure). */
export function buildConversationExport(
  c: Pick<ConversationRow, 'title' | 'model' | 'createdAt' | 'updatedAt' | 'forkedFrom'>,
  messages: MessageRow[],
  calls: ToolCallView[],
  now: Date,
): ConversationExport {
  const byToolUse = new Map(calls.map((call) => [call.toolUseId, call]));
  return {
    format: CONVERSATION_EXPORT_FORMAT,
    version: CONVERSATION_EXPORT_VERSION,
    exportedAt: now.toISOString(),
    conversation: {
      title: c.title,
      model: c.model,
      createdAt: c.createdAt.toISOString(),
      updatedAt: c.updatedAt.toISOString(),
      forkedFrom: c.forkedFrom ? { title: c.forkedFrom.title, snapshotAt: c.forkedFrom.snapshotAt } : null,
    },
    messages: messages.flatMap((m) => {
      const exported = exportMessage(m, byToolUse);
      return exported ? [exported] : [];
    }),
  };
}

/** A message as exported, or null for one the page does not show (a user turn carrying only tool results). */
function exportMessage(m: MessageRow, byToolUse: Map<string, ToolCallView>): ExportedMessage | null {
  const parts: ExportedPart[] = [];
  for (const block of m.content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking') parts.push({ type: 'thinking', text: block.thinking, redacted: false });
    else if (block.type === 'redacted_thinking') parts.push({ type: 'thinking', text: null, redacted: true });
    else if (block.type === 'tool_use') parts.push({ type: 'tool_call', call: exportToolCall(block, byToolUse.get(block.id)) });
  }
  const origin = m.origin;
  const attachments =
    origin?.kind === 'resources'
      ? origin.resources.map(({ serverName, uri, name, mimeType, chars, truncated }) => ({
          server: serverName,
          uri,
          ...(name !== undefined && { name }),
          ...(mimeType !== undefined && { mimeType }),
          ...(chars !== undefined && { chars }),
          ...(truncated !== undefined && { truncated }),
        }))
      : undefined;
  if (parts.length === 0 && !attachments) return null;
  return {
    role: m.role,
    createdAt: m.createdAt.toISOString(),
    ...(origin?.kind === 'prompt' && { prompt: { server: origin.serverName, name: origin.name } }),
    ...(attachments && { attachments }),
    ...(origin?.kind === 'view_context' && { viewContext: origin.views.map((v) => ({ server: v.serverName, tool: v.tool })) }),
    parts,
    ...(m.stopReason && m.stopReason !== 'end_turn' && m.stopReason !== 'tool_use' && { stopReason: m.stopReason }),
  };
}

function exportToolCall(use: { name: string; input: unknown }, call: ToolCallView | undefined): ExportedToolCall {
  const args = (call?.input ?? use.input ?? {}) as Record<string, unknown>;
  if (!call) return { server: null, tool: null, name: use.name, arguments: args, status: 'proposed', reason: null, result: null };
  const reason = call.status === 'rejected' || call.status === 'denied' ? (call.decision?.reason ?? call.verdict?.reason ?? null) : null;
  return {
    server: call.server,
    tool: call.tool,
    name: call.modelName,
    arguments: args,
    status: call.status,
    reason,
    result: call.result ? exportResult(call.result) : null,
  };
}

function exportResult(result: NonNullable<ToolCallView['result']>): ExportedResult {
  const full = result.parts
    .flatMap((p) => (p.kind === 'image' ? [] : [p.text]))
    .join('\n')
    .trim();
  const cut = full.length > RESULT_TEXT_MAX;
  return {
    isError: result.isError,
    text: cut ? full.slice(0, RESULT_TEXT_MAX) : full,
    chars: full.length,
    cut,
    modelGotPart: result.truncated,
    images: result.parts.flatMap((p) => (p.kind === 'image' ? [p.mediaType] : [])),
  };
}

/**
 * The file's name from the title: letters, digits, spaces, dots, dashes and underscores kept,
 * anything else a dash, at most 80 characters; "conversation" when nothing is left.
 */
export function exportFileName(title: string, format: ExportFormat): string {
  const safe = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 ._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[\s.-]+|[\s.-]+$/g, '')
    .slice(0, 80)
    .trim();
  return `${safe || 'conversation'}.${format}`;
}
