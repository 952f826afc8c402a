import type { CallToolResult, InputRequiredResult, Tool } from '@modelcontextprotocol/server';

import { authenticateBearer } from '@/lib/auth/access-tokens';
import { toolRefusal } from '@/lib/consent/org-policy';
import { limitExceeded, limitsFor } from '@/lib/limits';
import type { ConnectDeps } from '@/lib/mcp/connection';

import { ASK_TOOL_NAME, askTool, callAsk, type AskDeps } from './ask-tool';
import { callExposedTool, errorResult, rateLimited, type ClientCallDeps } from './call';
import { createCallBudget } from './call-budget';
import { exposableTools, inProfile, toMcpTool, type ExposableTool } from './catalog';
import { clientNames } from './client-names';
import { createGatewayContent } from './content';
import { approvalStateCodec } from './elicit-approval';
import { createMcpEndpoint, type McpEndpoint } from './endpoint';
import { createClientListenBus } from './list-changed';
import { createListenStreams } from './listen-streams';
import { orgPolicyMemo } from './org-policies';
import type { GatewayPrincipal } from './principal';
import { buildGatewayServer, type ClientAsk, type GatewayTools } from './server';

export interface GatewayDeps extends ClientCallDeps, Partial<Pick<AskDeps, 'chat' | 'askWaitMs'>> {
  /** How servers are reached for their resources and prompts (the app's, as the chat reads them); without it /mcp offers tools only. */
  connectDeps?: ConnectDeps;
}

/** `/mcp` as the runtime serves it (lib/server/runtime.ts); the bench (bench/gateway.ts) wires the same on its own databases. */
export function createGatewayEndpoint(deps: GatewayDeps): McpEndpoint {
  const tools = createGatewayTools(deps);
  // An open listen stream is checked again without counting as a use of the token.
  const streams = createListenStreams({
    stillValid: async (req) => (await authenticateBearer(deps.db, req, new Date(), { recordUse: false })).ok,
  });
  const bus = createClientListenBus(deps.bus, { onRevoked: (clientId) => void streams.recheck(clientId) });
  return createMcpEndpoint(deps.db, (principal) => buildGatewayServer(tools, principal), { bus, streams });
}

/**
 * The gateway's tools for one principal: exactly what its token's profile exposes of the person's
 * switched-on servers (none by default), read on every request, so a profile changed by the person
 * or a server switched off applies at the client's next request. The servers themselves are read
 * again only when the person's `tools_rev`, read with the token, has moved (every change to a
 * server bumps it): a client's calls in a row do not re-read them.
 */
export function createGatewayTools(deps: GatewayDeps): GatewayTools {
  // Switchboard's own agent (./ask-tool.ts), for a client whose profile has it; needs the chat's wiring.
  const offersAgent = (p: GatewayPrincipal) => p.profile.agentTool === true && deps.chat !== undefined;
  // The names a client sees are computed over the same set on every path (the profile's tools, the
  // organizations' tool lists not applied), so a name listed is the name a call finds. Listing,
  // those lists apply after naming: a tool they forbid is not listed, nor does it make its server's
  // content reachable. A call of it still finds it, so that callExposedTool refuses it with the
  // policy's reason.
  const orgPolicies = orgPolicyMemo(deps.db);
  const budget = createCallBudget(deps.db);
  const exposed = async (p: GatewayPrincipal, opts: { listing?: boolean } = {}) => {
    if (p.profile.tools.length === 0) return [];
    const [tools, policies] = await Promise.all([
      exposableTools(deps.tools, { id: p.userId, plan: p.plan, toolsRev: p.toolsRev }),
      opts.listing ? orgPolicies(p) : [],
    ]);
    const named = withClientNames(inProfile(tools, p.profile), p);
    return opts.listing ? named.filter((t) => toolRefusal(policies, t.tool) === null) : named;
  };
  const { connectDeps } = deps;
  const content =
    connectDeps &&
    createGatewayContent({
      db: deps.db,
      connectDeps,
      budget,
      servers: async (p) => [...new Map((await exposed(p, { listing: true })).map((t) => [t.server.id, t.server])).values()],
    });
  // Valid as long as the call may wait, plus a minute for the client to send its answer back.
  const stateCodec = approvalStateCodec(deps.stateKey, Math.ceil(deps.approvalWaitMs / 1000) + 60);
  /** Calls in progress per client on this instance (`mcpConcurrentCalls`). */
  const inFlight = new Map<string, number>();
  return {
    stateCodec,
    ...(content && { content }),
    async list(principal): Promise<Tool[]> {
      const tools = (await exposed(principal, { listing: true })).map(toMcpTool);
      return offersAgent(principal) ? [askTool(), ...tools] : tools;
    },
    async call(principal, name, args, signal, ask): Promise<CallToolResult | InputRequiredResult> {
      const busy = inFlight.get(principal.client.id) ?? 0;
      const most = limitsFor(principal.plan).mcpConcurrentCalls;
      if (busy >= most) {
        return errorResult(
          limitExceeded('mcpConcurrentCalls', most, 'Wait for one of them to finish before calling again.', principal.plan).message,
        );
      }
      inFlight.set(principal.client.id, busy + 1);
      try {
        return await callOne(principal, name, args, signal, ask);
      } finally {
        const left = (inFlight.get(principal.client.id) ?? 1) - 1;
        if (left > 0) inFlight.set(principal.client.id, left);
        else inFlight.delete(principal.client.id);
      }
    },
  };

  async function callOne(
    principal: GatewayPrincipal,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    ask: ClientAsk,
  ): Promise<CallToolResult | InputRequiredResult> {
    const limited = await rateLimited(budget, principal);
    if (limited) return limited;
    if (name === ASK_TOOL_NAME && offersAgent(principal))
      return callAsk({ ...deps, chat: deps.chat! }, principal, args, signal, ask.onWaiting);
    const tool = (await exposed(principal)).find((t) => t.name === name);
    if (!tool) {
      return errorResult(
        `No tool named "${name}" is exposed to this client. The person picks which of their tools a token exposes, on their ` +
          'Switchboard Account page; use only the tools listed.',
      );
    }
    return callExposedTool({ ...deps, stateCodec, orgPolicies }, principal, tool, args, signal, ask);
  }
}

/** The exposed tools under the names this client sees (./client-names.ts). */
function withClientNames(tools: ExposableTool[], p: GatewayPrincipal): ExposableTool[] {
  const names = clientNames(tools, { own: (t) => t.tool.name, namespaced: (t) => t.name }, { ownNames: p.profile.ownNames });
  return tools.map((t, i) => ({ ...t, name: names[i]! }));
}
