import type Anthropic from '@anthropic-ai/sdk';

import type { RunRow } from '@/db/queries/runs';
import { hasStoredResults } from '@/db/queries/tool-calls';
import { listFoundTools, listRecentTools } from '@/db/queries/tool-search';

import type { EngineDeps } from './deps';
import { HOST_SERVER, READ_RESULT_TOOL } from './read-result-tool';
import { SEARCH_TOOLS_TOOL } from './search-tools-tool';
import { DEFAULT_TOOL_SEARCH, keyOf, overToolBudget, roomBesideSearch, toolsToKeep } from './tool-budget';
import { offerTools, withHostTool, type ToolHost, type ToolOffer } from './tool-host';

/**
 * The tools offered to the model for one step. Every enabled tool while they fit the budget;
 * past it, `switchboard__search_tools` plus the tools this run found by searching and the tools
 * most recently used in the conversation (tool-budget.ts). Once a result was too large to send
 * whole, the paging host tool too. Without a run (`id: null`, e.g. a view of what the next turn
 * would be offered) nothing was found yet.
 */
export async function offerForStep(
  deps: Pick<EngineDeps, 'db' | 'toolSearch'>,
  host: ToolHost,
  run: Pick<RunRow, 'userId' | 'conversationId' | 'sessionId'> & { id: string | null },
): Promise<ToolOffer> {
  const enabled = await offerTools(host, { userId: run.userId, conversationId: run.conversationId, sessionId: run.sessionId });
  const settings = deps.toolSearch ?? DEFAULT_TOOL_SEARCH;
  let offer = enabled;
  if (overToolBudget(enabled.tools, settings)) {
    const [found, recent] = await Promise.all([
      run.id ? listFoundTools(deps.db, run.id) : [],
      listRecentTools(deps.db, run.conversationId, HOST_SERVER.id, settings.recentTools),
    ]);
    const enabledKeys = new Set([...enabled.routes.values()].map((r) => keyOf({ serverId: r.tool.serverId, tool: r.tool.name })));
    const keep = toolsToKeep(enabledKeys, found, recent, roomBesideSearch(settings));
    offer = withHostTool(onlyTools(enabled, keep), SEARCH_TOOLS_TOOL, HOST_SERVER);
  }
  if (await hasStoredResults(deps.db, run.conversationId)) offer = withHostTool(offer, READ_RESULT_TOOL, HOST_SERVER);
  return offer;
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
  return { tools, routes, nameMap };
}
