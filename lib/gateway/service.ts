import type { CallToolResult, Tool } from '@modelcontextprotocol/server';

import type { ToolHost } from '@/lib/agent/tool-host';

import { exposableTools, inProfile, toMcpTool } from './catalog';
import type { GatewayPrincipal } from './principal';
import type { GatewayTools } from './server';

export interface GatewayDeps {
  tools: ToolHost;
}

/** The gateway's tools: exactly what the token's profile exposes of the person's switched-on servers (none by default). */
export function createGatewayTools(deps: GatewayDeps): GatewayTools {
  const exposed = async (p: GatewayPrincipal) =>
    p.profile.tools.length === 0 ? [] : inProfile(await exposableTools(deps.tools, { id: p.userId, plan: p.plan }), p.profile);
  return {
    async list(principal): Promise<Tool[]> {
      return (await exposed(principal)).map(toMcpTool);
    },
    async call(_principal, name): Promise<CallToolResult> {
      return { isError: true, content: [{ type: 'text', text: `No tool named "${name}" is exposed to this client.` }] };
    },
  };
}
