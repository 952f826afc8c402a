import { Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';

import type { GatewayPrincipal } from './principal';

/** What the MCP server of one request asks of the gateway: the principal's exposed tools, and one call. */
export interface GatewayTools {
  list(principal: GatewayPrincipal): Promise<Tool[]>;
  call(principal: GatewayPrincipal, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

const INSTRUCTIONS =
  "The tools of the person's own Switchboard servers that they exposed to this client, named <server>__<tool> as in their chat. " +
  'Each call goes through their Switchboard consent rules and is recorded in their activity log under this client’s name; ' +
  'a call that needs their approval waits until they allow or deny it in Switchboard (or the wait ends), then returns.';

/** The MCP server for one request of one principal (built per request by the endpoint's handler). */
export function buildGatewayServer(tools: GatewayTools, principal: GatewayPrincipal): Server {
  const server = new Server(
    { name: 'switchboard', title: 'Switchboard', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: await tools.list(principal) }));
  server.setRequestHandler('tools/call', async (request, ctx) =>
    tools.call(principal, request.params.name, (request.params.arguments ?? {}) as Record<string, unknown>, ctx.mcpReq.signal),
  );
  return server;
}
