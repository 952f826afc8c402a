import { getRun, type RunRow } from '@/db/queries/runs';
import { getConversationTaint } from '@/db/queries/taint';
import {
  getToolCall,
  listCallsAwaitingSignIn,
  updateToolCallIfVersion,
  type ToolCallPatch,
  type ToolCallRow,
} from '@/db/queries/tool-calls';
import type { StoredVerdict } from '@/db/stored-json';
import { constraintUnmetBy } from '@/lib/consent/constraint-check';
import { verdictFor } from '@/lib/consent/policy';
import { errorToolResult } from '@/lib/mcp/to-tool-result';
import type { McpServerConfig, ServerCatalog } from '@/lib/mcp/types';

import { auditEndedCalls } from './audit-calls';
import { resumeIfSettled } from './decide';
import type { EngineDeps } from './deps';
import { toToolCallView } from './tool-call-view';

/** What blocks a run from going on after a sign-in: another sign-in, or a server's open question. */
const STILL_WAITING = ['awaiting_sign_in', 'awaiting_input'] as const;

/**
 * The person finished signing in to a server (the OAuth callback calls this). Every call of theirs
 * that waited for that server goes back to run — after consent is checked again, since a sign-in
 * never widens what they granted — and each run that waited for nothing else continues here, on
 * whichever instance took the callback, exactly as a decision resumes one. A run that also waits
 * for another server waits on until that one is signed in too.
 */
export async function resumeAfterSignIn(
  deps: EngineDeps,
  s: { userId: string; serverId: string },
): Promise<{ toolCallIds: string[]; resumedRunIds: string[] }> {
  const waiting = await listCallsAwaitingSignIn(deps.db, s.userId, s.serverId);
  const runs = new Map<string, ToolCallRow>();
  const moved: string[] = [];
  const checker = consentChecker(deps, s.userId, s.serverId);
  for (const call of waiting) {
    const next = await releaseCall(deps, call, checker);
    if (!next) continue;
    moved.push(next.id);
    runs.set(next.runId, next);
  }
  const resumedRunIds: string[] = [];
  for (const [runId, call] of runs) {
    if (await resumeIfSettled(deps, call, STILL_WAITING)) resumedRunIds.push(runId);
  }
  return { toolCallIds: moved, resumedRunIds };
}

/** Moves one call out of awaiting_sign_in (compare-and-swap: two callbacks at once move it once). */
async function releaseCall(deps: EngineDeps, first: ToolCallRow, check: ConsentChecker): Promise<ToolCallRow | null> {
  let call: ToolCallRow | null = first;
  for (let attempt = 0; attempt < 3 && call?.status === 'awaiting_sign_in'; attempt++) {
    const run = await getRun(deps.db, call.runId);
    if (!run) return null;
    const patch = await check(run, call);
    if (patch === 'keep') return null;
    const current = call;
    // A call the re-check ended (rejected, errored) is logged in the same transaction.
    const updated = await deps.db.transaction(async (tx) => {
      const row = await updateToolCallIfVersion(tx, current.id, current.version, patch);
      if (row) await auditEndedCalls(tx, deps, [row]);
      return row;
    });
    if (updated) {
      await deps.events.persist(updated.conversationId, updated.runId, eventFor(updated), { toolCall: toToolCallView(updated) });
      return updated;
    }
    call = await getToolCall(deps.db, call.id);
  }
  return null;
}

function eventFor(call: ToolCallRow): 'tool_call.decided' | 'tool_call.approval_requested' | 'tool_call.completed' {
  if (call.status === 'pending_approval') return 'tool_call.approval_requested';
  return call.endedAt ? 'tool_call.completed' : 'tool_call.decided';
}

/** The call's next state, or 'keep' when the server still wants a sign-in (the person may try again). */
type ConsentChecker = (run: RunRow, call: ToolCallRow) => Promise<ToolCallPatch | 'keep'>;

/**
 * The call's verdict again, from the server's tool list as it is now and the person's grants as
 * they are now: a grant withdrawn meanwhile rejects the call, one that now asks sends it to the
 * person (unless they already approved this very call), and nothing becomes more allowed than it
 * was when the call was decided.
 */
function consentChecker(deps: EngineDeps, userId: string, serverId: string): ConsentChecker {
  let servers: Promise<McpServerConfig[]> | undefined;
  const catalogs = new Map<string, Promise<ServerCatalog>>();
  return async (run, call) => {
    const host = deps.tools;
    const runnable: ToolCallPatch = { status: call.decision ? 'approved' : 'auto_approved' };
    if (!host) return runnable; // the driver says the tools are not available here
    servers ??= host.serversFor(userId);
    const server = (await servers).find((x) => x.id === serverId);
    if (!server) return ended(call, 'rejected', `${call.modelName} was not run: its server is no longer available.`);
    // One listing per conversation, however many of its calls waited for this server.
    let listing = catalogs.get(run.conversationId);
    if (!listing)
      catalogs.set(run.conversationId, (listing = host.gateway.listTools(server, { userId, conversationId: run.conversationId })));
    const catalog = await listing;
    if (catalog.needsSignIn) return 'keep';
    const tool = catalog.tools.find((t) => t.name === call.tool);
    if (!tool) {
      const why = catalog.error ?? `${server.displayName} no longer offers this tool.`;
      return ended(call, 'errored', `${call.modelName} did not run after the sign-in: ${why}`);
    }
    const grant = (
      await host.grants.grantsFor({ userId, conversationId: run.conversationId, sessionId: run.sessionId, clientId: run.clientId }, [tool])
    ).get(tool);
    if (!grant) return ended(call, 'rejected', `${call.modelName} was not run: this tool is not switched on for this conversation.`);
    const taintedBy = (await getConversationTaint(deps.db, run.conversationId))?.serverName ?? null;
    const constraintWhy = constraintUnmetBy(grant.constraint, call.input);
    const judged = verdictFor({
      tool: { trust: tool.trust, annotations: tool.annotations, privateData: server.privateData === true },
      grant: { state: grant.state, autoApprove: grant.autoApprove },
      overPlan: grant.overPlan,
      org: grant.org,
      constraintUnmet: constraintWhy !== null,
      constraintWhy,
      taintedBy,
    });
    const verdict: StoredVerdict = {
      v: 1,
      ...judged,
      grantId: grant.grantId,
      constraint: grant.constraint,
      tainted: taintedBy !== null,
    };
    if (judged.verdict === 'reject') return { ...ended(call, 'rejected', `${call.modelName} was not run: ${judged.reason}`), verdict };
    if (judged.verdict === 'ask' && !call.decision) return { status: 'pending_approval', verdict };
    return { ...runnable, verdict };
  };
}

function ended(call: ToolCallRow, status: 'rejected' | 'errored', message: string): ToolCallPatch {
  return { status, result: errorToolResult(call.toolUseId, message), isError: true, endedAt: new Date() };
}
