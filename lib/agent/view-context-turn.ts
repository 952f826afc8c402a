import type { Db } from '@/db/connection';
import { listViewContextsOwed, type ToolCallRow } from '@/db/queries/tool-calls';
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
 * "Since its last turn" is read on the branch being answered, not in time: a view's context is owed
 * when its call's card is on the path the turn follows and no views' message on that path carries
 * this very context (its `at`). The origin below is that per-call mark. So an edit or a regenerated
 * path that never saw a context gets it, and a call left on an abandoned branch owes the new branch
 * nothing (db/queries/tool-calls.ts `listViewContextsOwed`).
 *
 * Bounded per turn: the newest MAX_VIEWS_PER_TURN views, and at most MAX_VIEW_CONTEXT_TURN_CHARS
 * of their words in all (each view's own text is bounded where it is stored); the rest are named
 * as left out, so forty dashboards cannot fill the model's context window with one message.
 */
export async function viewContextOpening(
  db: Db,
  conversationId: string,
  /** The message the turn follows: undefined for the active leaf, null for a new first message. */
  after: string | null | undefined,
  serversOf: () => Promise<McpServerConfig[]>,
): Promise<{ message: OpeningMessage; taint: StoredTaint | null } | null> {
  const owed = (await listViewContextsOwed(db, conversationId, after)).filter(
    (c): c is ToolCallRow & { viewContext: NonNullable<ToolCallRow['viewContext']> } => c.viewContext !== null,
  );
  if (!owed.length) return null;
  const servers = await serversOf();
  // A server whose views the person switched off (servers page) has no view on screen to speak for:
  // its calls' contexts stay owed, and go before the model once its views are on again.
  const updated = owed.filter((c) => servers.find((s) => s.id === c.serverId)?.showViews !== false);
  if (!updated.length) return null;
  // Newest first within the bounds; shown in the conversation's order.
  const byNewest = [...updated].sort((a, b) => Date.parse(b.viewContext.at) - Date.parse(a.viewContext.at));
  let chars = 0;
  const fresh = byNewest
    .filter((c, i) => {
      chars += c.viewContext.text.length + (c.viewContext.structured ? JSON.stringify(c.viewContext.structured).length : 0);
      return i < MAX_VIEWS_PER_TURN && chars <= MAX_VIEW_CONTEXT_TURN_CHARS;
    })
    .reverse();
  const leftOut = updated.filter((c) => !fresh.includes(c));

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
  if (leftOut.length) {
    const names = leftOut.map((c) => `"${c.modelName}"`).join(', ');
    text.push(`[Switchboard: what the views of ${names} shared is left out: more than this turn's share of views' words.]`);
  }
  return { message: { role: 'user', content: [{ type: 'text', text: text.join('\n') }], origin }, taint };
}

/** The most views whose words go before the model in one turn. */
export const MAX_VIEWS_PER_TURN = 8;
/** The most characters of views' words in one turn (about 8,000 tokens). */
export const MAX_VIEW_CONTEXT_TURN_CHARS = 32_000;
