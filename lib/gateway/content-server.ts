import type { Server } from '@modelcontextprotocol/server';

import type { GatewayContent } from './content';
import type { GatewayPrincipal } from './principal';

/**
 * The resource, prompt and completion methods of `/mcp`'s server for one principal
 * (./content.ts does the work). Lists are read again on every request, like `tools/list`: a
 * profile the person changed applies at the client's next request.
 */
export function serveExposedContent(server: Server, content: GatewayContent, principal: GatewayPrincipal): void {
  server.registerCapabilities({ resources: {}, prompts: {}, completions: {} });
  server.setRequestHandler('resources/list', async () => ({ resources: await content.listResources(principal) }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: await content.listResourceTemplates(principal),
  }));
  server.setRequestHandler('resources/read', async (request) => content.readResource(principal, request.params.uri));
  server.setRequestHandler('prompts/list', async () => ({ prompts: await content.listPrompts(principal) }));
  server.setRequestHandler('prompts/get', async (request) =>
    content.getPrompt(principal, request.params.name, request.params.arguments ?? {}),
  );
  server.setRequestHandler('completion/complete', async (request) => content.complete(principal, request.params));
}
