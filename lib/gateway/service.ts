import type { CallToolResult, Tool } from '@modelcontextprotocol/server';

import type { GatewayTools } from './server';

/** The gateway's tools: nothing is exposed until the person picks tools for a token (off by default). */
export function createGatewayTools(): GatewayTools {
  return {
    async list(): Promise<Tool[]> {
      return [];
    },
    async call(_principal, name): Promise<CallToolResult> {
      return { isError: true, content: [{ type: 'text', text: `No tool named "${name}" is exposed to this client.` }] };
    },
  };
}
