import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';

import type { Db } from '@/db/connection';
import { getResultOfToolUse, getStoredResult } from '@/db/queries/tool-calls';
import { joinToolName, RESERVED_NAMESPACE } from '@/lib/mcp/naming';
import { errorToolResult, escapeToolOutput, FENCE_CLOSE, fenceOpen, readMoreNote, RESULT_BUDGET_CHARS } from '@/lib/mcp/to-tool-result';
import type { CatalogTool, McpServerConfig } from '@/lib/mcp/types';

/**
 * A read-only tool of the host itself: pages through a tool result that was too large to send
 * whole. It reads only results stored in the same conversation, so a model cannot reach into
 * another conversation (or user) by guessing an id.
 */
export const HOST_SERVER: McpServerConfig = {
  id: 'host',
  namespace: RESERVED_NAMESPACE,
  displayName: 'Switchboard',
  url: 'builtin://switchboard',
  trust: 'trusted',
  // What its tools answer is the host's own (a stored result, already judged when it came in).
  trustContent: true,
  timeoutMs: 10_000,
  builtin: true,
};

export const READ_RESULT_TOOL: CatalogTool = {
  serverId: HOST_SERVER.id,
  namespace: HOST_SERVER.namespace,
  serverName: HOST_SERVER.displayName,
  trust: 'trusted',
  name: 'read_result',
  description:
    'Reads more of a tool result that was cut because it was too large, or again a result that was left out to make room in the ' +
    'context window. Use it only when a result ends with a "result truncated" marker or says it was left out, and you need it; ' +
    'pass the callId and offset from that marker or note. Returns the next part of the stored text and, if more remains, a marker ' +
    'with the next offset. No side effects.',
  inputSchema: {
    type: 'object',
    properties: {
      callId: { type: 'string', minLength: 1, description: 'The callId from the truncation marker or the left-out note.' },
      offset: { type: 'integer', minimum: 0, description: 'Character offset to read from (from the marker).' },
    },
    required: ['callId', 'offset'],
    additionalProperties: false,
  },
  annotations: {
    title: 'Read more of a large result',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  fingerprint: 'host/read_result/v2',
};

/** The name the model calls it by. */
export const READ_RESULT_TOOL_NAME = joinToolName(HOST_SERVER.namespace, READ_RESULT_TOOL.name);

// The input was validated against READ_RESULT_TOOL.inputSchema when the call was proposed.
const readResultInput = z.object({ callId: z.string(), offset: z.number().int().min(0) });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function readStoredResult(
  db: Db,
  conversationId: string,
  toolUseId: string,
  rawInput: unknown,
): Promise<Anthropic.ToolResultBlockParam> {
  const parsed = readResultInput.safeParse(rawInput);
  if (!parsed.success) return errorToolResult(toolUseId, 'Pass the callId and offset from a truncation marker.');
  const input = parsed.data;
  // A truncation marker names the call's id; a result left out to make room names its tool_use id.
  const stored = UUID.test(input.callId)
    ? await getStoredResult(db, conversationId, input.callId)
    : await getResultOfToolUse(db, conversationId, input.callId);
  if (!stored)
    return errorToolResult(
      toolUseId,
      `No stored result with callId "${input.callId}" in this conversation. Use the callId from a truncation marker.`,
    );
  const total = stored.fullText.length;
  if (input.offset >= total)
    return errorToolResult(toolUseId, `offset ${input.offset} is past the end: the result has ${total} characters.`);
  const end = Math.min(total, input.offset + RESULT_BUDGET_CHARS);
  const page = stored.fullText.slice(input.offset, end);
  const parts = [fenceOpen(stored.serverName ?? 'tool', stored.tool ?? 'result'), escapeToolOutput(page), FENCE_CLOSE];
  if (end < total) parts.push(readMoreNote(READ_RESULT_TOOL_NAME, input.callId)(end, total));
  return { type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text: parts.join('\n') }] };
}
