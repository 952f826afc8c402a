import type { RunRow } from '@/db/queries/runs';
import type { ToolCallRow } from '@/db/queries/tool-calls';
import { constraintUnmetBy } from '@/lib/consent/constraint-check';
import { isUsable, NOT_SWITCHED_ON } from '@/lib/consent/grant-source';
import type { CatalogTool, McpServerConfig } from '@/lib/mcp/types';

import type { ToolHost } from './tool-host';

/**
 * The grant is checked again right before a call executes, not only when the step's tools were
 * offered: a tool switched off, a grant revoked, expired or ended by a sign-out, a definition
 * that changed, or a new constraint the input does not meet, between the proposal (or the
 * person's approval) and now — the call does not run. Nor does a call that was to run without
 * asking (`auto_approved`) of a tool the organization's policy now makes ask (`org.askAlways`):
 * nobody was asked, so it is refused with the policy's reason (the model may propose it again,
 * and then the person is asked). Returns, for each call that may no longer
 * run, why in words. A server whose listing fails now is not judged here: its call fails (or
 * waits for a sign-in, and is checked again after it) without running anything.
 */
export async function callsNoLongerAllowed(
  host: ToolHost,
  /** Whose grants: the run's (its user, conversation and the session that started it), or a view's asker. */
  run: Pick<RunRow, 'userId' | 'conversationId' | 'sessionId'> & { clientId?: string | null },
  calls: ToolCallRow[],
  servers: McpServerConfig[],
  read: { plan?: string | null; toolsRev?: number } = {},
): Promise<Map<string, NotAllowed>> {
  const refused = new Map<string, NotAllowed>();
  const byServer = new Map<string, ToolCallRow[]>();
  for (const call of calls) {
    if (!call.serverId || !call.tool) continue;
    byServer.set(call.serverId, [...(byServer.get(call.serverId) ?? []), call]);
  }
  const ctx = { userId: run.userId, conversationId: run.conversationId, sessionId: run.sessionId, clientId: run.clientId, ...read };
  // Every server's list at once, then the grants of every tool in one read (not one per server).
  const listings = await Promise.all(
    [...byServer].map(async ([serverId, serverCalls]) => {
      const server = servers.find((s) => s.id === serverId);
      if (!server) return null; // executeCalls says the server is gone
      const catalog = await host.gateway.listTools(server, { userId: run.userId, conversationId: run.conversationId });
      if (catalog.error || catalog.needsSignIn) return null;
      return { server, serverCalls, tools: new Map<string, CatalogTool>(catalog.tools.map((t) => [t.name, t])) };
    }),
  );
  const judged = listings.filter((l) => l !== null);
  const listed = judged.flatMap((l) => l.serverCalls.map((c) => l.tools.get(c.tool!)).filter((t): t is CatalogTool => t !== undefined));
  const grants = await host.grants.grantsFor(ctx, listed);
  for (const { server, serverCalls, tools } of judged) {
    for (const call of serverCalls) {
      const tool = tools.get(call.tool!);
      const grant = tool ? grants.get(tool) : undefined;
      if (!tool || !grant) {
        refused.set(call.id, gone(`${server.displayName} no longer offers it as it was approved.`));
      } else if (!isUsable(grant)) {
        refused.set(call.id, gone(grant.why ?? NOT_SWITCHED_ON));
      } else if (call.status === 'auto_approved' && grant.org?.askAlways) {
        // It was to run without asking; the organization now makes every call of it ask, and nobody was asked.
        refused.set(call.id, { why: grant.org.askAlways.why, asksNow: true });
      } else {
        const why = constraintUnmetBy(grant.constraint, call.input);
        if (why) refused.set(call.id, gone(`The arguments are outside what the person's grant now allows for this tool: ${why}`));
      }
    }
  }
  return refused;
}

/** Why a call may no longer run, in words (`why`: the reason stored on its verdict). */
export interface NotAllowed {
  why: string;
  /** The tool is still offered, but a call of it now asks (the organization's policy): this one was to run unasked. */
  asksNow: boolean;
}

const gone = (why: string): NotAllowed => ({ why, asksNow: false });

/**
 * The error result's words, so the model does not retry blindly: the tool is gone, and why; or
 * it is still there but now asks, so proposing it again puts it to the person.
 */
export function notRunMessage(modelName: string, n: NotAllowed): string {
  return n.asksNow
    ? `${modelName} was not run: it was to run without asking, and now every call of it asks. ${n.why} ` +
        'Propose it again if it is still needed; the person will be asked.'
    : `${modelName} was not run: it is no longer available in this conversation. ${n.why}`;
}
