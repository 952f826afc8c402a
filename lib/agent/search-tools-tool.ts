import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';

import { joinToolName } from '@/lib/mcp/naming';
import { errorToolResult, escapeToolOutput, FENCE_CLOSE, fenceOpen } from '@/lib/mcp/to-tool-result';
import type { CatalogTool } from '@/lib/mcp/types';

import { HOST_SERVER } from './read-result-tool';
import type { ToolKey } from './tool-budget';
import type { ToolOffer } from './tool-host';
import { rankTools } from './tool-ranking';

/**
 * A read-only tool of the host itself, offered instead of every enabled tool when they are past
 * the budget (tool-budget.ts). It searches only the tools this run may use — what the grant
 * source made available — so a search can never reach a tool the person did not enable. The
 * tools it finds are offered from the next step of the same turn (step-offer.ts).
 */
export const SEARCH_TOOLS_TOOL: CatalogTool = {
  serverId: HOST_SERVER.id,
  namespace: HOST_SERVER.namespace,
  serverName: HOST_SERVER.displayName,
  trust: 'trusted',
  name: 'search_tools',
  description:
    'Many tools are enabled in this conversation, so only some are listed. Search the enabled tools by what you want to do ' +
    '(e.g. "create calendar event") or by a tool name the person mentioned. The tools found can be called from your next step. ' +
    'Search again with other words if nothing fits. No side effects.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 200, description: 'Words describing the task, or a tool name.' },
      limit: { type: 'integer', minimum: 1, maximum: 20, description: 'How many tools to return at most (default 5, at most 20).' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: {
    title: 'Search the enabled tools',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  fingerprint: 'host/search_tools/v1',
};

export const SEARCH_TOOLS_TOOL_NAME = joinToolName(HOST_SERVER.namespace, SEARCH_TOOLS_TOOL.name);

export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
/** A found tool's description is cut to this in the answer: the full one comes with the tool itself. */
const DESCRIPTION_CHARS = 300;

// The input was validated against SEARCH_TOOLS_TOOL.inputSchema when the call was proposed.
const searchInput = z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional() });

export interface ToolSearchOutcome {
  result: Anthropic.ToolResultBlockParam;
  /** The tools found, best first: offered from the next step of this turn. */
  found: ToolKey[];
}

/**
 * Answers one search over `enabled` (every tool this run may use right now, as offerTools builds
 * it). At most `maxResults` tools are returned, whatever the model asked: no more fit beside the
 * search tool in the next step's offer.
 */
export function searchTools(enabled: ToolOffer, toolUseId: string, rawInput: unknown, maxResults = MAX_SEARCH_LIMIT): ToolSearchOutcome {
  const parsed = searchInput.safeParse(rawInput);
  if (!parsed.success)
    return { result: errorToolResult(toolUseId, 'Pass a "query": words describing the task, or a tool name.'), found: [] };
  const { query, limit = DEFAULT_SEARCH_LIMIT } = parsed.data;
  const candidates = enabled.tools.map((t) => {
    const route = enabled.routes.get(t.name)!;
    return {
      name: t.name,
      toolName: route.tool.name,
      namespace: route.tool.namespace,
      title: route.tool.title ?? route.tool.annotations.title,
      description: t.description,
      route,
    };
  });
  const ranked = rankTools(query, candidates, Math.min(limit, maxResults));
  if (!ranked.length) {
    const text =
      `No enabled tool matches "${query}". ${candidates.length} tools are enabled in this conversation; search again with ` +
      'other words (what the tool does, or its name). A tool the person has not enabled cannot be found or called; ' +
      'they can enable it in the Tools panel.';
    return { result: { type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text }] }, found: [] };
  }
  // Descriptions are the servers' words, so they travel fenced like any tool output.
  const lines = ranked.map(({ tool }) => `- ${tool.name}: ${(tool.description ?? '').slice(0, DESCRIPTION_CHARS)}`);
  const text = [
    `Found ${ranked.length} enabled tool${ranked.length === 1 ? '' : 's'} for "${query}". They can be called from your next step:`,
    fenceOpen(HOST_SERVER.displayName, SEARCH_TOOLS_TOOL.name),
    escapeToolOutput(lines.join('\n')),
    FENCE_CLOSE,
  ].join('\n');
  return {
    result: { type: 'tool_result', tool_use_id: toolUseId, content: [{ type: 'text', text }] },
    found: ranked.map(({ tool }) => ({ serverId: tool.route.tool.serverId, tool: tool.route.tool.name })),
  };
}
