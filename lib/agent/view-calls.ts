import { randomUUID } from 'node:crypto';

import type { Db } from '@/db/connection';
import { getConversationTaint } from '@/db/queries/taint';
import {
  closeUnfinishedCall,
  getToolCall,
  getToolCallForUser,
  insertToolCalls,
  updateToolCallIfVersion,
  VIEW_CALL_STEP,
  type NewToolCall,
  type ToolCallPatch,
  type ToolCallRow,
} from '@/db/queries/tool-calls';
import type { StoredVerdict } from '@/db/stored-json';
import { callRan } from '@/db/vocabulary';
import { constraintUnmetBy } from '@/lib/consent/constraint-check';
import { verdictFor } from '@/lib/consent/policy';
import { errorSummary } from '@/lib/log-safe';
import { joinToolName } from '@/lib/mcp/naming';
import { withInputDefaults } from '@/lib/mcp/schema-guard';
import { errorToolResult } from '@/lib/mcp/to-tool-result';
import type { CatalogTool, McpServerConfig } from '@/lib/mcp/types';

import { auditEndedCalls } from './audit-calls';
import type { EngineDeps } from './deps';
import { patchFor } from './execute-calls';
import { calledToolFields } from './propose-calls';
import { callsNoLongerAllowed } from './recheck';
import { toToolCallView } from './tool-call-view';
import type { ToolHost } from './tool-host';
import { pendingViewCallRefusal, viewCallRateRefusal } from './view-call-limits';

/**
 * A `tools/call` from a tool call's interactive view (MCP Apps) goes through the consent the
 * model's calls go through: the same grant (of the person's signed-in session), constraint,
 * expiry, annotations and taint, decided by the one table (`verdictFor`), stored as a tool call
 * row (so "ask" waits durably for the same approval card and decision route, and every end is in
 * the audit log, marked as asked by the view), executed through the same gateway. What differs:
 * a view may call only tools of its own call's server (tools marked for the app alone included,
 * tools marked for the model alone not), the row belongs to no model step (`VIEW_CALL_STEP`), and
 * its result goes back to the view — never into the model's history (the spec has a view put
 * things before the model only through `ui/update-model-context` or a message the person sends).
 */

export class ViewCallError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid' | 'unavailable' | 'rate_limited',
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface ViewCallRequest {
  userId: string;
  /** The signed-in session asking: the person at the view, whose grants apply. */
  sessionId: string | null;
  /** The call whose view asks. */
  viewOf: string;
  name: string;
  arguments: Record<string, unknown>;
}

const viewsSwitchedOff = (server: string) => `Interactive views of ${server} are switched off (Servers page): its views call no tools.`;

/** Decides a view's call and runs it when the table allows it at once. The stored row as it ends (or waits). */
export async function askFromView(deps: EngineDeps, req: ViewCallRequest): Promise<ToolCallRow> {
  const host = hostOf(deps);
  const parent = await getToolCallForUser(deps.db, req.userId, req.viewOf);
  if (!parent) throw new ViewCallError('not_found', `No tool call with id "${req.viewOf}".`);
  if (!parent.viewUri || !parent.serverId || parent.askedByCallId) {
    throw new ViewCallError('not_found', `The tool of this call (${parent.modelName}) declared no interactive view.`);
  }
  if (!parent.result || !callRan(parent.status)) {
    throw new ViewCallError('conflict', `The view can call tools only once its own call has run (this one is ${parent.status}).`);
  }
  const server = (await host.serversFor(req.userId)).find((s) => s.id === parent.serverId);
  if (!server) throw new ViewCallError('conflict', `${parent.serverName ?? 'The server'} is no longer one of your enabled servers.`);
  // A view still open in a page when the person switched its server's views off asks nothing more.
  if (server.showViews === false) throw new ViewCallError('conflict', viewsSwitchedOff(server.displayName));
  // Counted only once the view may ask at all (a refused view spends no budget and writes no counter).
  const tooMany = await viewCallRateRefusal(deps.db, { conversationId: parent.conversationId, viewOf: parent.id });
  if (tooMany) throw new ViewCallError('rate_limited', tooMany);

  const caller = { userId: req.userId, conversationId: parent.conversationId };
  const catalog = await host.gateway.listTools(server, caller);
  if (catalog.error) throw new ViewCallError('unavailable', catalog.error);
  const tool = catalog.tools.find((t) => t.name === req.name);
  if (!tool) {
    throw new ViewCallError(
      'invalid',
      `name: "${req.name}" is not a tool of ${server.displayName}; an interactive view may call only the tools of its own server.`,
      'name',
    );
  }
  if (tool.view?.appCallable === false) {
    throw new ViewCallError(
      'invalid',
      `name: ${server.displayName} marks "${req.name}" for the model only; its views may not call it.`,
      'name',
    );
  }
  // The input as the server will take it (defaults filled), hashed, shown, checked and sent.
  const { input, problem } = withInputDefaults(tool.inputSchema, req.arguments);
  if (problem) throw new ViewCallError('invalid', `arguments: ${problem}`, 'arguments');

  const ctx = { userId: req.userId, conversationId: parent.conversationId, sessionId: req.sessionId };
  const grant = (await host.grants.grantsFor(ctx, [tool])).get(tool);
  const taint = await getConversationTaint(deps.db, parent.conversationId);
  const constraintWhy = grant ? constraintUnmetBy(grant.constraint, input) : null;
  const judged = verdictFor({
    tool: { trust: tool.trust, annotations: tool.annotations, privateData: server.privateData === true },
    grant: grant ? { state: grant.state, autoApprove: grant.autoApprove } : { state: 'missing', autoApprove: false },
    overPlan: grant?.overPlan ?? false,
    org: grant?.org,
    constraintUnmet: constraintWhy !== null,
    constraintWhy,
    taintedBy: taint?.serverName ?? null,
  });
  const verdict: StoredVerdict = {
    v: 1,
    ...judged,
    grantId: grant?.grantId ?? null,
    constraint: grant?.constraint ?? null,
    tainted: taint !== null,
  };
  const row = describe(parent, server, tool, input);
  if (judged.verdict === 'reject') {
    const rejected = { ...row, status: 'rejected' as const, verdict, isError: true, endedAt: new Date() };
    const message = `${req.name} was not run: ${verdict.reason}`;
    return deps.db.transaction(async (tx) => {
      const [stored] = await insertToolCalls(tx, [{ ...rejected, result: errorToolResult(row.toolUseId, message) }]);
      await auditEndedCalls(tx, deps, [stored!]);
      await announce(deps, tx, stored!, 'tool_call.completed');
      return stored!;
    });
  }
  if (judged.verdict === 'auto') {
    const [stored] = await insertToolCalls(deps.db, [{ ...row, status: 'auto_approved', verdict }]);
    return runViewCall(deps, stored!, req.sessionId);
  }
  // Waiting for the person: no more approval cards than the caps allow.
  return deps.db.transaction(async (tx: Db) => {
    const full = await pendingViewCallRefusal(tx, { userId: req.userId, conversationId: parent.conversationId, viewOf: parent.id });
    if (full) throw new ViewCallError('rate_limited', full);
    const [stored] = await insertToolCalls(tx, [{ ...row, status: 'pending_approval', verdict }]);
    await announce(deps, tx, stored!, 'tool_call.approval_requested');
    return stored!;
  });
}

/** The row of a view's call: the parent's run and conversation, no model step, the view named as who asked. */
function describe(parent: ToolCallRow, server: McpServerConfig, tool: CatalogTool, input: Record<string, unknown>) {
  return {
    runId: parent.runId,
    conversationId: parent.conversationId,
    userId: parent.userId,
    step: VIEW_CALL_STEP,
    position: 0,
    // No tool_use block: an id of its own, unique within the run like the model's.
    toolUseId: `view_${randomUUID()}`,
    modelName: joinToolName(server.namespace, tool.name),
    ...calledToolFields(server, tool, input),
    viewUri: null,
    askedByCallId: parent.id,
  } satisfies NewToolCall;
}

/**
 * Runs a view's call that was allowed (by the table, or by the person's decision), once: its
 * grant is checked again first, as the engine does (`callsNoLongerAllowed`), then it is marked
 * `executing` by compare-and-swap (a second decider or a repeated request runs nothing) and the
 * outcome is stored with its audit entry in one transaction. No lease: the call is not the run's.
 */
export async function runViewCall(deps: EngineDeps, call: ToolCallRow, sessionId: string | null): Promise<ToolCallRow> {
  try {
    return await runAllowed(deps, call, sessionId);
  } catch (err) {
    // A conflict is another decider's call, still in its hands; anything else ends this one here.
    if (err instanceof ViewCallError) throw err;
    return failViewCall(deps, call, err);
  }
}

/**
 * Ends a view's call that was allowed but broke before it could end (a server list, a grant read,
 * the gateway or a store threw): `errored`, audited, whatever step it reached (`approved`,
 * `auto_approved`, `executing`). No lease holds a view's call and no sweep takes one over, so a
 * call left in one of those would show "running" on its card for ever. The ended row, or the
 * call as another decider ended it.
 */
export async function failViewCall(deps: EngineDeps, call: ToolCallRow, err: unknown): Promise<ToolCallRow> {
  // What broke stays in the log: the result goes to the server's own view, which is not told our internals.
  console.error(`[view call ${call.id}] unexpected failure:`, errorSummary(err));
  const ended = await deps.db.transaction(async (tx: Db) => {
    const row = await closeUnfinishedCall(tx, call.id, {
      status: 'errored',
      result: errorToolResult(call.toolUseId, `${call.modelName} failed in Switchboard before it could finish. Try again.`),
      isError: true,
      endedAt: new Date(),
    });
    if (row) await auditEndedCalls(tx, deps, [row]);
    if (row) await announce(deps, tx, row, 'tool_call.completed');
    return row;
  });
  return ended ?? (await getToolCall(deps.db, call.id)) ?? call;
}

async function runAllowed(deps: EngineDeps, call: ToolCallRow, sessionId: string | null): Promise<ToolCallRow> {
  const host = hostOf(deps);
  const servers = await host.serversFor(call.userId);
  const who = { userId: call.userId, conversationId: call.conversationId, sessionId };
  const why = (await callsNoLongerAllowed(host, who, [call], servers)).get(call.id)?.why;
  const server = servers.find((s) => s.id === call.serverId);
  if (why || !server || server.showViews === false) {
    const reason =
      why ??
      (server ? viewsSwitchedOff(server.displayName) : `${call.serverName ?? 'Its server'} is no longer one of your enabled servers.`);
    return end(deps, call, {
      status: 'rejected',
      verdict: { v: 1, verdict: 'reject', reason, warnings: [], grantId: call.verdict?.grantId ?? null, constraint: null },
      result: errorToolResult(call.toolUseId, `${call.modelName} was not run: ${reason}`),
      isError: true,
    });
  }
  const started = await updateToolCallIfVersion(deps.db, call.id, call.version, {
    status: 'executing',
    attempts: call.attempts + 1,
    startedAt: new Date(),
  });
  if (!started) throw new ViewCallError('conflict', 'This call is already running or decided elsewhere.');
  const outcome = await host.gateway.callTool(server, started.tool!, started.input as Record<string, unknown>, {
    caller: { userId: call.userId, conversationId: call.conversationId },
    signal: AbortSignal.timeout(server.timeoutMs * 2),
    timeoutMs: server.timeoutMs,
    ...(started.inputSchema && { inputSchema: started.inputSchema }),
  });
  // A view's call cannot wait for the person on the server's behalf (a sign-in, a question): no
  // run holds it and the view's request would be gone by the time the person is back. It ends,
  // saying what the person can do; for a sign-in it keeps which server and why (`sign_in`), so
  // the card shows the same sign-in card as for the model's calls, with Connect.
  const patch: ToolCallPatch =
    outcome.kind === 'needs_sign_in'
      ? {
          status: 'errored',
          result: errorToolResult(
            call.toolUseId,
            `${server.displayName} needs you to sign in first: connect it on the card under the view, then ask the view again.`,
          ),
          isError: true,
          signIn: {
            v: 1,
            serverId: outcome.serverId,
            serverName: outcome.serverName,
            ...(outcome.scopes?.length ? { scopes: outcome.scopes } : {}),
            reason: outcome.reason,
            at: new Date().toISOString(),
          },
        }
      : outcome.kind === 'input_required'
        ? {
            status: 'errored',
            result: errorToolResult(
              call.toolUseId,
              `${server.displayName} asked a question, which a call from an interactive view cannot answer.`,
            ),
            isError: true,
          }
        : { ...patchFor(started, server, outcome), fullText: null };
  return end(deps, started, patch);
}

/** Stores how a view's call ended, and its audit entry, together. */
async function end(deps: EngineDeps, call: ToolCallRow, patch: ToolCallPatch): Promise<ToolCallRow> {
  const ended = await deps.db.transaction(async (tx: Db) => {
    const row = await updateToolCallIfVersion(tx, call.id, call.version, { ...patch, endedAt: new Date() });
    if (row) await auditEndedCalls(tx, deps, [row]);
    if (row) await announce(deps, tx, row, 'tool_call.completed');
    return row;
  });
  if (!ended) throw new ViewCallError('conflict', 'This call was ended elsewhere.');
  return ended;
}

/**
 * A view's call in the conversation's event log, as the model's calls are (the same event names,
 * the card's run), committed with the change it tells of: every open page of the conversation
 * updates the view's card — its waiting approval, the decision, how it ended — without a reload.
 */
export async function announce(
  deps: EngineDeps,
  db: Db,
  call: ToolCallRow,
  type: 'tool_call.approval_requested' | 'tool_call.decided' | 'tool_call.completed',
): Promise<void> {
  await deps.events.store(db, call.conversationId, call.runId, [{ type, data: { toolCall: toToolCallView(call) } }]);
}

function hostOf(deps: EngineDeps): ToolHost {
  if (!deps.tools) throw new ViewCallError('unavailable', 'No MCP servers are configured.');
  return deps.tools;
}
