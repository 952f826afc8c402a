import type { Db } from '@/db/connection';
import { markConversationTainted } from '@/db/queries/taint';
import type { ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredTaint } from '@/db/stored-json';
import type { TaintSource } from '@/db/vocabulary';
import { errorSummary } from '@/lib/log-safe';
import type { CallOutcome, ProgressUpdate } from '@/lib/mcp/types';

import type { ToolOffer } from './tool-host';

/**
 * Where the engine marks a conversation tainted: each place where text the person does not vouch
 * for enters what the model reads (or what the person is shown inside the turn). A server's tool
 * descriptions and titles are its definition, reviewed and pinned by fingerprint: they taint when
 * its annotations are not trusted (`trust`). What it returns at run time — a result, an error, an
 * elicitation message, progress text — taints unless the person trusts its content
 * (`trustContent`): believing a server's annotations is not believing what a web page it fetched
 * says. The mark is durable (`conversations.tainted`), set once, and read at propose time by the
 * decision table (`taintedBy`) and by the tools panel (lib/consent/taint.ts explains it).
 */

export function taintOf(source: TaintSource, from: { serverId: string; serverName: string; tool?: string | null }): StoredTaint {
  return {
    v: 1,
    at: new Date().toISOString(),
    source,
    serverId: from.serverId,
    serverName: from.serverName,
    ...(from.tool ? { tool: from.tool } : {}),
  };
}

/**
 * Before a model step: a tool offered to the model brings its description and title in; those of
 * a server whose annotations are not trusted taint. `taintedBy`: who tainted the conversation
 * already (nothing to write). Returns who tainted it, by server name, or null: it is not tainted.
 */
export async function markOfferTaint(
  db: Db,
  conversationId: string,
  offer: ToolOffer,
  opts: { taintedBy?: string | null } = {},
): Promise<string | null> {
  if (opts.taintedBy) return opts.taintedBy;
  const first = [...offer.routes.values()].find((r) => r.tool.trust !== 'trusted' || r.server.trust !== 'trusted');
  if (!first) return null;
  const from = { serverId: first.tool.serverId, serverName: first.server.displayName, tool: first.tool.name };
  await markConversationTainted(db, conversationId, taintOf('tool_description', from));
  return from.serverName;
}

/**
 * The marks one call of a server may set while it runs (nothing when its content is trusted): its first
 * progress message with text (one write, not one per message), and then its outcome — the
 * server's own words, a result, its error or its question to the person — before it is stored.
 */
export function callTaint(db: Db, call: ToolCallRow, untrustedContent: boolean) {
  let marking: Promise<void> | undefined;
  return {
    progress(p: ProgressUpdate): void {
      if (!untrustedContent || !p.message || marking) return;
      marking = markCallTaint(db, call, 'progress').catch((err) => console.error('[taint] progress mark failed:', errorSummary(err)));
    },
    async outcome(outcome: CallOutcome): Promise<void> {
      await marking;
      const source = OUTCOME_SOURCES[outcome.kind];
      if (untrustedContent && source) await markCallTaint(db, call, source);
    },
  };
}

/** Which outcomes carry the server's own text (a timeout, a cancel or a sign-in is in our words). */
const OUTCOME_SOURCES: Record<CallOutcome['kind'], TaintSource | null> = {
  result: 'result',
  failed: 'result',
  input_required: 'elicitation',
  timeout: null,
  cancelled: null,
  needs_sign_in: null,
  // The task's status message is the server's text, as a progress message is.
  task: 'progress',
};

/** Marks the conversation of a call whose server's content is not trusted; a no-op once it is tainted. */
export async function markCallTaint(
  db: Db,
  call: { conversationId: string; serverId: string | null; serverName: string | null; tool: string | null },
  source: TaintSource,
): Promise<void> {
  const from = { serverId: call.serverId ?? 'unknown', serverName: call.serverName ?? 'an untrusted server', tool: call.tool };
  await markConversationTainted(db, call.conversationId, taintOf(source, from));
}
