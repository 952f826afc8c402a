import type { Tool } from '@modelcontextprotocol/server';

import type { Db } from '@/db/connection';
import { listPoliciesOfUser } from '@/db/queries/orgs';
import type { StoredTokenProfile } from '@/db/stored-json';
import type { ToolHost } from '@/lib/agent/tool-host';
import { toolRefusal } from '@/lib/consent/org-policy';
import { isOnPlan, planOf } from '@/lib/consent/plan-tools';
import { isTrustedReadOnly } from '@/lib/consent/policy';
import { buildToolNames, namespaceProblem } from '@/lib/mcp/naming';
import type { CatalogTool, McpServerConfig } from '@/lib/mcp/types';

/**
 * The tools a person could expose to MCP clients, named as their chat names them
 * (`<namespace>__<tool>`, lib/mcp/naming.ts): every tool of the servers they have switched on
 * (the built-in ones and their enabled servers, only reviewed tools of the latter: the tool
 * host filters those), within their plan, that a model may call (a tool marked for its views only
 * is not). Their organizations' tool lists are not applied here, so that names are given over the
 * same set on every path: the pickers mark a forbidden tool (`pickableTools`), a profile refuses it
 * (./profile.ts), `/mcp` leaves it out of its listing and refuses its call (./service.ts, ./call.ts).
 * Catalogs come from the same caches the chat uses.
 */
export interface ExposableTool {
  name: string;
  tool: CatalogTool;
  server: McpServerConfig;
}

export async function exposableTools(
  host: ToolHost,
  /** `toolsRev`: the person's `users.tools_rev` as read for this request, when it was (their servers read at it are reused). */
  user: { id: string; plan: string | null; toolsRev?: number },
): Promise<ExposableTool[]> {
  const servers = [...(await host.serversFor(user.id, { toolsRev: user.toolsRev }))]
    .filter((s) => namespaceProblem(s.namespace) === null)
    .sort((a, b) => a.namespace.localeCompare(b.namespace));
  const catalogs = await Promise.all(servers.map((s) => host.gateway.listTools(s, { userId: user.id })));
  const plan = planOf(user.plan);
  const listed = catalogs.flatMap((c) =>
    c.tools.filter((t) => t.view?.modelVisible !== false && isOnPlan(plan, t.serverId, t.name)).map((tool) => ({ tool, server: c.server })),
  );
  const names = buildToolNames(listed.map((l) => ({ serverId: l.tool.serverId, namespace: l.tool.namespace, name: l.tool.name })));
  return listed.map((l) => ({ name: names.modelNameOf(l.tool.serverId, l.tool.name), ...l }));
}

/** Of the exposable tools, those the profile names (by server id and tool name: a renamed namespace keeps them). */
export function inProfile(tools: ExposableTool[], profile: StoredTokenProfile): ExposableTool[] {
  const picked = new Set(profile.tools.map((t) => JSON.stringify([t.serverId, t.tool])));
  return tools.filter((t) => picked.has(JSON.stringify([t.tool.serverId, t.tool.name])));
}

/**
 * A tool as an MCP client sees it. Annotations that ask for less caution (read-only, idempotent)
 * are passed on only from a server whose annotations the person trusts, as the decision table
 * believes them (lib/consent/policy.ts): the client should not believe more than Switchboard does.
 */
export function toMcpTool({ name, tool, server }: ExposableTool): Tool {
  const annotations = { ...tool.annotations };
  if (tool.trust !== 'trusted') {
    delete annotations.readOnlyHint;
    delete annotations.idempotentHint;
  }
  const from = `[${server.displayName}${tool.trust === 'untrusted' ? ', untrusted server' : ''}]`;
  return {
    name,
    ...(tool.title && { title: tool.title }),
    description: `${from} ${tool.description ?? tool.title ?? tool.name}`,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema && { outputSchema: tool.outputSchema as Tool['outputSchema'] }),
    annotations,
  };
}

/** A tool as the pickers offer it for a token's or a client's profile (no schemas: the person reads names and titles). */
export interface PickableTool {
  name: string;
  serverName: string;
  title: string | null;
  /** A trusted server marks it read-only: a client's call runs without asking (while the token is not tainted). */
  runsWithoutAsking: boolean;
  /** Why the person's organization forbids it ("Your organization … does not allow …"): shown, not pickable. Null: allowed. */
  refused: string | null;
}

/**
 * Every tool the person could expose, each with their organizations' verdict: the Account page's
 * pickers and the OAuth consent screen show a forbidden tool disabled with the reason. The
 * policies are read here, so no picker can forget them.
 */
export async function pickableTools(deps: { db: Db; host: ToolHost }, user: { id: string; plan: string | null }): Promise<PickableTool[]> {
  const [tools, policies] = await Promise.all([exposableTools(deps.host, user), listPoliciesOfUser(deps.db, user.id)]);
  return tools.map(({ name, tool, server }) => ({
    name,
    serverName: server.displayName,
    title: tool.title ?? tool.annotations.title ?? null,
    runsWithoutAsking: isTrustedReadOnly({ trust: tool.trust, annotations: tool.annotations }),
    refused: toolRefusal(policies, tool)?.why ?? null,
  }));
}
