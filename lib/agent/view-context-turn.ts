import type { Db } from '@/db/connection';
import { getLatestRun } from '@/db/queries/runs';
import { listConversationToolCalls, type ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredMessageOrigin, StoredTaint } from '@/db/stored-json';
import { escapeToolOutput, FENCE_CLOSE, fenceOpen } from '@/lib/mcp/to-tool-result';
import type { McpServerConfig } from '@/lib/mcp/types';

import type { OpeningMessage } from './engine';
import { taintOf } from './taint';

/**
 * What interactive views told the model since its last turn (MCP Apps `ui/update-model-context`,
 * stored on the view's call: lib/chat/view-context.ts), put before it at the next turn as a message
 * of its own, ahead of the person's: each view's latest words, fenced as that server's output and
 * said to come from its view, not from the person. The message's origin names the views, so the
 * page marks it as theirs. A view of a server whose content the person does not trust (now, and
 * when its call ran) taints the conversation, as that server's result would.
 *
 * "Since its last turn": updated after the conversation's latest run began — an update made while
 * that run went on, or after it ended, has not been before the model; an older one has.
 */
export async function viewContextOpening(
  db: Db,
  conversationId: string,
  servers: McpServerConfig[],
): Promise<{ message: OpeningMessage; taint: StoredTaint | null } | null> {
  const latest = await getLatestRun(db, conversationId);
  if (!latest) return null;
  const since = latest.createdAt.getTime();
  const fresh = (await listConversationToolCalls(db, conversationId)).filter(
    (c): c is ToolCallRow & { viewContext: NonNullable<ToolCallRow['viewContext']> } =>
      c.viewContext !== null && Date.parse(c.viewContext.at) > since,
  );
  if (!fresh.length) return null;

  const origin: Extract<StoredMessageOrigin, { kind: 'view_context' }> = { v: 1, kind: 'view_context', views: [] };
  const text: string[] = [];
  let taint: StoredTaint | null = null;
  for (const call of fresh) {
    const serverName = call.serverName ?? 'a server';
    const tool = call.tool ?? call.modelName;
    origin.views.push({ toolCallId: call.id, serverId: call.serverId ?? 'unknown', serverName, tool, at: call.viewContext.at });
    const said = [call.viewContext.text, ...(call.viewContext.structured ? [JSON.stringify(call.viewContext.structured)] : [])];
    text.push(
      `[Switchboard: the interactive view of your earlier "${call.modelName}" call shared this for you; ` +
        `it was written by ${serverName}'s view, not by the person.]`,
      `${fenceOpen(serverName, `${tool} (interactive view)`)}\n${escapeToolOutput(said.join('\n'))}\n${FENCE_CLOSE}`,
    );
    const server = servers.find((s) => s.id === call.serverId);
    const trusted = call.contentTrusted && server?.trustContent === true;
    if (!trusted) taint ??= taintOf('view_context', { serverId: call.serverId ?? 'unknown', serverName, tool: call.tool });
  }
  return { message: { role: 'user', content: [{ type: 'text', text: text.join('\n') }], origin }, taint };
}
