import type Anthropic from '@anthropic-ai/sdk';

import { isUsable, NOT_SWITCHED_ON, type GrantSource, type RunGrantContext, type ToolGrant } from '@/lib/consent/grant-source';
import type { SessionEnding } from '@/lib/mcp/legacy-sessions';
import { buildToolNames, joinToolName, namespaceProblem } from '@/lib/mcp/naming';
import type { CatalogTool, McpGateway, McpServerConfig } from '@/lib/mcp/types';

/** Where tools come from: the user's servers, how to reach them, and what the person granted. */
export interface ToolHost {
  gateway: McpGateway;
  /** `toolsRev`: the user's `users.tools_rev` as read this step; the servers read at the same value may be reused. */
  serversFor(userId: string, opts?: { toolsRev?: number }): Promise<McpServerConfig[]>;
  grants: GrantSource;
  /** Ends the MCP sessions kept for conversations (lib/mcp/legacy-sessions.ts): idle ones (the sweep), a deleted conversation's. */
  sessions?: SessionEnding;
}

export interface OfferedTool {
  modelName: string;
  tool: CatalogTool;
  server: McpServerConfig;
  grant: ToolGrant;
}

export interface ToolOffer {
  /** What the model sees, in a stable order, with a cache breakpoint on the last tool. */
  tools: Anthropic.Tool[];
  /** Model-facing name → the tool it routes to; stored with the run for the step. */
  routes: Map<string, OfferedTool>;
  nameMap: Record<string, { serverId: string; tool: string }>;
  /**
   * Tools the person has but that are not available on this step, by the name the model would use
   * (`<namespace>__<tool>`), with why in words: a call to one is told why, not "no such tool".
   */
  unavailable?: Record<string, string>;
}

/**
 * The tools offered to the model for one step: every listed tool the person's grants make
 * available, ordered by server namespace then the server's own order (the list is part of the
 * cached prompt prefix, so it must not shuffle between turns).
 */
export async function offerTools(host: ToolHost, ctx: RunGrantContext): Promise<ToolOffer> {
  // A namespace that could shadow the host's tools or split two ways is never offered.
  const servers = [...(await host.serversFor(ctx.userId, { toolsRev: ctx.toolsRev }))]
    .filter((s) => namespaceProblem(s.namespace) === null)
    .sort((a, b) => a.namespace.localeCompare(b.namespace));
  const catalogs = await Promise.all(
    servers.map((s) => host.gateway.listTools(s, { userId: ctx.userId, conversationId: ctx.conversationId })),
  );
  // A tool marked for its views only (MCP Apps `visibility: ["app"]`) is never the model's to call.
  const listed = catalogs.flatMap((c) => c.tools.filter((t) => t.view?.modelVisible !== false).map((tool) => ({ tool, server: c.server })));
  const grants = await host.grants.grantsFor(
    ctx,
    listed.map((l) => l.tool),
  );
  const available = listed.filter((l) => {
    const g = grants.get(l.tool);
    return g !== undefined && isUsable(g);
  });

  const names = buildToolNames(available.map((l) => ({ serverId: l.tool.serverId, namespace: l.tool.namespace, name: l.tool.name })));
  const routes = new Map<string, OfferedTool>();
  const tools: Anthropic.Tool[] = [];
  for (const l of available) {
    const modelName = names.modelNameOf(l.tool.serverId, l.tool.name);
    routes.set(modelName, { modelName, tool: l.tool, server: l.server, grant: grants.get(l.tool)! });
    tools.push({
      name: modelName,
      description: describeForModel(l.tool),
      input_schema: l.tool.inputSchema as Anthropic.Tool.InputSchema,
    });
  }
  if (tools.length) tools[tools.length - 1] = { ...tools[tools.length - 1]!, cache_control: { type: 'ephemeral' } };
  const unavailable: Record<string, string> = {};
  for (const l of listed) {
    const g = grants.get(l.tool);
    const name = joinToolName(l.tool.namespace, l.tool.name);
    if (g && !routes.has(name) && !isUsable(g)) {
      unavailable[name] = g.why ?? NOT_SWITCHED_ON;
    }
  }
  return { tools, routes, nameMap: names.byModelName, unavailable };
}

function describeForModel(tool: CatalogTool): string {
  const head = `[${tool.serverName}${tool.trust === 'untrusted' ? ', untrusted server' : ''}]`;
  return `${head} ${tool.description ?? tool.title ?? tool.name}`.slice(0, 4000);
}

/** Adds a host tool to an offer, after the servers' tools, keeping the cache breakpoint last. */
export function withHostTool(offer: ToolOffer, tool: CatalogTool, server: McpServerConfig): ToolOffer {
  const modelName = joinToolName(tool.namespace, tool.name);
  if (offer.routes.has(modelName)) return offer;
  const tools: Anthropic.Tool[] = offer.tools.map((t) => {
    const copy = { ...t };
    delete copy.cache_control;
    return copy;
  });
  tools.push({
    name: modelName,
    description: tool.description ?? tool.name,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
    cache_control: { type: 'ephemeral' },
  });
  const routes = new Map(offer.routes);
  routes.set(modelName, {
    modelName,
    tool,
    server,
    grant: { state: 'active', autoApprove: false, grantId: null, constraint: null, overPlan: false },
  });
  return { ...offer, tools, routes, nameMap: { ...offer.nameMap, [modelName]: { serverId: tool.serverId, tool: tool.name } } };
}
