import type Anthropic from '@anthropic-ai/sdk';

import type { Db } from '@/db/connection';
import { hasStoredResults } from '@/db/queries/tool-calls';
import { listFoundTools, listRecentTools } from '@/db/queries/tool-search';
import type { RunGrantContext } from '@/lib/consent/grant-source';

import { HOST_SERVER, READ_RESULT_TOOL } from './read-result-tool';
import { SEARCH_TOOLS_TOOL } from './search-tools-tool';
import { DEFAULT_TOOL_SEARCH, keyOf, overToolBudget, roomBesideSearch, toolsToKeep, type ToolSearchSettings } from './tool-budget';
import { offerTools, withHostTool, type ToolHost, type ToolOffer } from './tool-host';

/**
 * Exactly the tools the model is offered on a step of this conversation. The engine builds each
 * step with it, and the Tools panel shows "what the model sees" with it, so the two cannot differ.
 *
 * Every granted tool (`offerTools`) while they fit the budget; past it, `switchboard__search_tools`
 * plus the tools the run found by searching and the tools most recently used in the conversation
 * (tool-budget.ts). Once a result was too large to send whole, the host's paging tool too.
 * `runId` is the run whose searches count (none: nothing was found yet); `toolSearch` the budget
 * (EngineDeps.toolSearch; default DEFAULT_TOOL_SEARCH); `hasStoredResults` when the caller already read it.
 */
export async function offerForStep(
  db: Db,
  host: ToolHost,
  ctx: RunGrantContext,
  opts: { runId?: string | null; toolSearch?: ToolSearchSettings; hasStoredResults?: boolean } = {},
): Promise<ToolOffer> {
  const enabled = await offerTools(host, ctx);
  const settings = opts.toolSearch ?? DEFAULT_TOOL_SEARCH;
  let offer = enabled;
  if (overToolBudget(enabled.tools, settings)) {
    const [found, recent] = await Promise.all([
      opts.runId ? listFoundTools(db, opts.runId) : [],
      listRecentTools(db, ctx.conversationId, HOST_SERVER.id, settings.recentTools),
    ]);
    const enabledKeys = new Set([...enabled.routes.values()].map((r) => keyOf({ serverId: r.tool.serverId, tool: r.tool.name })));
    const keep = toolsToKeep(enabledKeys, found, recent, roomBesideSearch(settings));
    offer = withHostTool(onlyTools(enabled, keep), SEARCH_TOOLS_TOOL, HOST_SERVER);
  }
  const stored = opts.hasStoredResults ?? (await hasStoredResults(db, ctx.conversationId));
  return stored ? withHostTool(offer, READ_RESULT_TOOL, HOST_SERVER) : offer;
}

/**
 * The part of an offer whose tools are in `keep` (by server id + tool name), in the offer's own
 * order and under the same model-facing names, so a tool keeps its name whether it was found by
 * a search or offered with all the others.
 */
export function onlyTools(offer: ToolOffer, keep: ReadonlySet<string>): ToolOffer {
  const routes: ToolOffer['routes'] = new Map();
  const nameMap: ToolOffer['nameMap'] = {};
  const tools: Anthropic.Tool[] = [];
  for (const t of offer.tools) {
    const route = offer.routes.get(t.name)!;
    if (!keep.has(keyOf({ serverId: route.tool.serverId, tool: route.tool.name }))) continue;
    routes.set(t.name, route);
    nameMap[t.name] = offer.nameMap[t.name]!;
    const copy = { ...t };
    delete copy.cache_control;
    tools.push(copy);
  }
  if (tools.length) tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: { type: 'ephemeral' } };
  return { tools, routes, nameMap, unavailable: offer.unavailable };
}
