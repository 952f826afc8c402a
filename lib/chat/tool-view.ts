import { getToolCall } from '@/db/queries/tool-calls';
import { callRan } from '@/db/vocabulary';
import { AppError } from '@/lib/http/errors';
import { readToolView, viewContentHash, viewCsp } from '@/lib/mcp/app-views';
import { reviewState } from '@/lib/mcp/catalog';

import type { ChatRuntime } from './runtime';

/**
 * The interactive view (MCP Apps) of one tool call, for the person who owns the call: the HTML of
 * the `ui://` resource its tool declared when the model called it, read through the same path as
 * any resource the person attaches (their enabled server, the URL guard, sign-in), with the CSP it
 * must run under (lib/mcp/app-views.ts). Only the view the call recorded is ever read, only once
 * the call has a result, and only while the tool still declares that same view as the person
 * reviewed it: a server cannot swap in another page later.
 */
export interface ToolViewResponse {
  html: string;
  csp: string;
}

export async function toolCallView(rt: ChatRuntime, userId: string, toolCallId: string): Promise<ToolViewResponse> {
  const call = await getToolCall(rt.handle.db, toolCallId);
  // Someone else's call is answered as if it did not exist.
  if (!call || call.userId !== userId) throw new AppError('not_found', 'tool_call', `No tool call with id "${toolCallId}".`);
  if (!call.viewUri || !call.serverId || !call.tool) {
    throw new AppError('not_found', 'view', `The tool of this call (${call.modelName}) declared no interactive view.`);
  }
  if (!call.result || !callRan(call.status)) {
    throw new AppError('conflict', 'view', `The view is shown only once its call has run (this one is ${call.status}).`);
  }

  const server = (await rt.tools.host.serversFor(userId)).find((s) => s.id === call.serverId);
  if (!server) throw new AppError('conflict', 'view', `${call.serverName ?? 'The server'} is no longer one of your enabled servers.`);
  // Switched off on the servers page: nothing of the view is read, listed or served.
  if (server.showViews === false) {
    throw new AppError('conflict', 'view', `Interactive views of ${server.displayName} are switched off (servers page).`);
  }
  const caller = { userId, conversationId: call.conversationId };
  const catalog = await rt.tools.host.gateway.listTools(server, caller);
  if (catalog.error) throw new AppError('bad_gateway', 'server', catalog.error);
  const tool = catalog.tools.find((t) => t.name === call.tool);
  // Not offered: the server no longer lists it, or it (its view included) changed since it was reviewed.
  if (!tool) {
    throw new AppError(
      'conflict',
      'view',
      `${server.displayName}'s tool "${call.tool}" is not available: it changed since you reviewed it or is no longer listed; ` +
        'see the servers page.',
    );
  }
  if (tool.view?.resourceUri !== call.viewUri) {
    const now = tool.view ? `it now declares ${tool.view.resourceUri}` : 'it now declares none';
    throw new AppError(
      'conflict',
      'view',
      `${server.displayName}'s tool "${call.tool}" no longer declares the view ${call.viewUri} (${now}).`,
    );
  }
  if (server.reviewedTools && reviewState(server.reviewedTools, tool) === 'no') {
    throw new AppError(
      'conflict',
      'view',
      `${server.displayName}'s tool "${call.tool}" changed since you reviewed it; review it on the servers page.`,
    );
  }

  const read = await readToolView(rt.tools.connectDeps, server, caller, call.viewUri);
  if (!read.ok) throw new AppError('bad_gateway', 'view', read.message);
  // The page served must be the one listed (and so reviewed): a server cannot answer the listing
  // with one page and this read with another.
  if (viewContentHash(read.value) !== tool.view.contentHash) {
    throw new AppError(
      'conflict',
      'view',
      `${server.displayName}'s view ${call.viewUri} is not the one listed for review; review "${call.tool}" on the servers page.`,
    );
  }
  return { html: read.value.html, csp: viewCsp(read.value.domains) };
}
