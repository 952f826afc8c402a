import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';

import type { Db } from '@/db/connection';
import { markAccessTokenTainted } from '@/db/queries/access-tokens';
import { claimClientApprovalRun, getClientApproval, type ClientApprovalRow } from '@/db/queries/client-approvals';
import type { AuditOutcome, AuditVerdict } from '@/db/vocabulary';
import { argsHash } from '@/lib/agent/args-hash';
import type { EventBus } from '@/lib/agent/bus';
import { taintOf } from '@/lib/agent/taint';
import type { ToolHost } from '@/lib/agent/tool-host';
import { appendAudit } from '@/lib/audit/append';
import type { AuditKeyring } from '@/lib/audit/key';
import { orgToolVerdict } from '@/lib/consent/org-policy';
import { verdictFor } from '@/lib/consent/policy';
import { limitExceeded, limitsFor } from '@/lib/limits';
import { errorSummary } from '@/lib/log-safe';
import { withInputDefaults } from '@/lib/mcp/schema-guard';
import type { CallOutcome } from '@/lib/mcp/types';

import { answerByElicitation, awaitApproval, requestApproval } from './approvals';
import { clientCallEntry } from './audit-entry';
import type { CallBudget } from './call-budget';
import type { ExposableTool } from './catalog';
import { askByElicitation, elicitedDecision, type ApprovalStateCodec } from './elicit-approval';
import type { OrgPoliciesOf } from './org-policies';
import type { GatewayPrincipal } from './principal';
import type { ClientAsk } from './server';

/**
 * One `tools/call` of an MCP client, under the chat's decision table (lib/consent/policy.ts):
 *
 * - **Grant**: the token's profile is the grant. A tool outside it is not exposed (the caller
 *   finds it with `exposed`, this runs only for one inside); the grant expires and is revoked
 *   with the token. A profile grants without auto-approve and without argument constraints
 *   (neither can be set on a token yet), so only what the table runs without a person runs here.
 * - **Conversation**: a client's calls belong to one standing context per token. Its taint
 *   (`access_tokens.tainted`) is set once content of a server the person does not trust has been
 *   returned to the client — the client's model has read it — and from then on the table treats
 *   each call as a tainted conversation's. It stays until the token is revoked.
 * - **A call that asks** waits for the person (./approvals.ts): it is stored as waiting, shown in the
 *   "Other clients" inbox of every open tab, and the client's request is held until the person
 *   allows it once (it then runs, and the client gets the real result) or denies it, or until
 *   `approvalWaitMs` has passed; a denial or the end of the wait is an `isError` result that says
 *   what happened and what to do.
 *
 * Every call that reached a tool is in the person's audit log under the client's name, refused
 * ones included. Calls are limited per token (`mcpCallsPerMinute`).
 */

export interface ClientCallDeps {
  db: Db;
  tools: ToolHost;
  auditKeys: () => Promise<AuditKeyring>;
  /** Tells every instance's open inboxes and waiting requests of a change (./approvals.ts). */
  bus: EventBus;
  /** How long a call waits for the person's approval (MCP_APPROVAL_WAIT_MS). */
  approvalWaitMs: number;
  /** Seals the request state of a call that asks the client by elicitation (32 bytes, the same on every instance). */
  stateKey: Uint8Array;
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * JSON-RPC's range for implementation-defined server errors: a request over a per-client limit that
 * has no result of its own to say so in (a content request, a listen stream past `mcpListenStreams`).
 */
export const LIMIT_REACHED = -32000;

/**
 * Counts a call — a tool call, or a content request (./content.ts) — against the client's
 * per-minute limit (./call-budget.ts); the refusal in words, or null.
 */
export async function overCallBudget(budget: CallBudget, p: GatewayPrincipal): Promise<string | null> {
  const max = limitsFor(p.plan).mcpCallsPerMinute;
  if (await budget.take(p.client.id, max)) return null;
  return limitExceeded('mcpCallsPerMinute', max, 'Wait a minute before calling again.', p.plan).message;
}

/** A tool call over the per-minute limit: its `isError` result, or null. */
export async function rateLimited(budget: CallBudget, p: GatewayPrincipal): Promise<CallToolResult | null> {
  const refused = await overCallBudget(budget, p);
  return refused === null ? null : errorResult(refused);
}

export async function callExposedTool(
  deps: ClientCallDeps & { stateCodec: ApprovalStateCodec; orgPolicies: OrgPoliciesOf },
  p: GatewayPrincipal,
  exposed: ExposableTool,
  args: Record<string, unknown>,
  signal: AbortSignal,
  ask: ClientAsk = { canElicit: false, inputResponses: undefined, approvalId: null },
): Promise<CallToolResult | InputRequiredResult> {
  const { tool, server, name } = exposed;
  const filled = withInputDefaults(tool.inputSchema, args);
  const input = filled.input;
  const record = (
    verdict: { kind: AuditVerdict; rule: string | null; warnings: string[] },
    outcome: AuditOutcome,
    startedAt: Date | null,
    result: CallToolResult,
  ) =>
    audit(deps, p, exposed, { input, argsHash: argsHash(input), verdict, outcome, startedAt, endedAt: new Date(), result }).then(
      () => result,
    );

  if (filled.problem) {
    const why = 'The input does not match the tool schema.';
    return record(
      { kind: 'rejected', rule: why, warnings: [] },
      'rejected',
      null,
      errorResult(`Invalid input for ${name}: ${filled.problem} Fix the input and call the tool again.`),
    );
  }
  const judged = verdictFor({
    tool: { trust: tool.trust, annotations: tool.annotations, privateData: server.privateData === true },
    grant: { state: 'active', autoApprove: false },
    overPlan: false,
    // The person's organizations hold their MCP clients to the same policy as their conversations.
    org: orgToolVerdict(await deps.orgPolicies(p), tool),
    constraintUnmet: false,
    taintedBy: p.tainted?.serverName ?? null,
  });
  if (judged.verdict === 'reject') {
    return record(
      { kind: 'rejected', rule: judged.reason, warnings: judged.warnings },
      'rejected',
      null,
      errorResult(`${name} was not run: ${judged.reason}`),
    );
  }
  let verdict: { kind: AuditVerdict; rule: string | null; warnings: string[] } = {
    kind: 'auto',
    rule: judged.reason,
    warnings: judged.warnings,
  };
  if (judged.verdict === 'ask') {
    const hash = argsHash(input);
    // A retried call answers the waiting call its (verified) request state names: the same person, client, tool and arguments.
    const answered = ask.approvalId ? await getClientApproval(deps.db, p.userId, ask.approvalId) : null;
    if (ask.approvalId && (answered?.clientId !== p.client.id || answered.name !== name || answered.argsHash !== hash)) {
      return errorResult(`${name} was not run: the answer sent belongs to another call. Call the tool again without it.`);
    }
    let pending = answered;
    if (!pending) {
      pending = await requestApproval(deps, {
        userId: p.userId,
        client: p.client,
        name,
        serverId: server.id,
        serverName: server.displayName,
        tool: tool.name,
        trust: tool.trust,
        annotations: { ...tool.annotations },
        input,
        argsHash: hash,
        reason: judged.reason,
        warnings: judged.warnings,
        expiresAt: new Date(Date.now() + deps.approvalWaitMs),
      });
      if (ask.canElicit) return askByElicitation(deps.stateCodec, pending);
    } else {
      const decision = elicitedDecision(ask.inputResponses);
      if (decision && pending.status === 'pending_approval') pending = await answerByElicitation(deps, pending, decision);
    }
    const settled =
      pending.status === 'pending_approval' ? await awaitApproval(deps, pending, signal, { onWaiting: ask.onWaiting }) : pending;
    if (settled.status !== 'approved') {
      const { kind, outcome, text } = unrun(settled, name, judged.reason, deps.approvalWaitMs, p.origin);
      return record({ kind, rule: judged.reason, warnings: judged.warnings }, outcome, null, errorResult(text));
    }
    // Allowed once: run by one request only (a replayed answer, or a second retry, finds it claimed).
    if (!(await claimClientApprovalRun(deps.db, p.userId, settled.id, new Date()))) {
      return errorResult(`${name} was not run again: the person allowed it once, and it has run. Call the tool anew to ask again.`);
    }
    verdict = { kind: 'allowed', rule: judged.reason, warnings: judged.warnings };
  }

  const startedAt = new Date();
  const outcome = await deps.tools.gateway.callTool(server, tool.name, input, {
    caller: { userId: p.userId },
    signal,
    timeoutMs: server.timeoutMs,
    inputSchema: tool.inputSchema,
    ...(ask.onProgress && { onProgress: (update) => ask.onProgress?.(update, { untrustedWords: server.trustContent !== true }) }),
  });
  if (server.trustContent !== true && CARRIES_SERVER_TEXT[outcome.kind]) {
    await markAccessTokenTainted(
      deps.db,
      p.client.id,
      taintOf('result', { serverId: server.id, serverName: server.displayName, tool: tool.name }),
    );
  }
  const { result, status } = toClientResult(outcome, name, server.displayName);
  return record(verdict, status, startedAt, result);
}

/** A waiting call that ended without the person's yes: how the audit log records it, and what the client is told. */
function unrun(
  settled: ClientApprovalRow,
  name: string,
  reason: string,
  waitMs: number,
  origin: string,
): { kind: AuditVerdict; outcome: AuditOutcome; text: string } {
  switch (settled.status) {
    case 'denied':
      return {
        kind: 'denied',
        outcome: 'denied',
        text: `${name} was not run: the person denied it in Switchboard. Do not call it again unless they ask you to.`,
      };
    case 'cancelled':
      return { kind: 'undecided', outcome: 'cancelled', text: `${name} was not run: the call was cancelled while it waited for approval.` };
    case 'timed_out':
    case 'pending_approval':
    case 'approved':
      return {
        kind: 'undecided',
        outcome: 'timed_out',
        text:
          `${name} was not run: it needs the person's approval in Switchboard (${reason}), and nobody decided within ` +
          `${Math.round(waitMs / 1000)} s. Ask them to open the "Other clients" inbox at ${origin}/inbox, then call it again.`,
      };
  }
}

/** Which outcomes bring the server's own words back to the client (a timeout or a cancel is in ours). */
const CARRIES_SERVER_TEXT: Record<CallOutcome['kind'], boolean> = {
  result: true,
  failed: true,
  input_required: true,
  timeout: false,
  cancelled: false,
  needs_sign_in: false,
  task: false,
};

/** The upstream result as the client gets it (passed through as the server sent it), or a failure in words. */
function toClientResult(outcome: CallOutcome, name: string, serverName: string): { result: CallToolResult; status: AuditOutcome } {
  switch (outcome.kind) {
    case 'result': {
      const result = outcome.result as CallToolResult;
      return { result, status: result.isError === true ? 'errored' : 'succeeded' };
    }
    case 'timeout':
      return { result: errorResult(outcome.message), status: 'timed_out' };
    case 'cancelled':
      return { result: errorResult(outcome.message), status: 'cancelled' };
    case 'failed':
      return { result: errorResult(outcome.message), status: 'errored' };
    case 'input_required':
      return {
        result: errorResult(
          `${serverName} asked a question while running ${name}; questions cannot be passed to MCP clients yet. It did not finish.`,
        ),
        status: 'errored',
      };
    case 'needs_sign_in':
      return {
        result: errorResult(`${serverName} needs the person to sign in again on Switchboard's Servers page before ${name} can run.`),
        status: 'errored',
      };
    case 'task':
      // Not asked for here (no `taskSupport` is passed): a server that starts one anyway is not followed.
      return {
        result: errorResult(`${serverName} started ${name} as a task, which cannot be passed to MCP clients yet.`),
        status: 'errored',
      };
  }
}

async function audit(deps: ClientCallDeps, p: GatewayPrincipal, exposed: ExposableTool, call: Parameters<typeof clientCallEntry>[2]) {
  try {
    await appendAudit(deps.db, await deps.auditKeys(), [clientCallEntry(p, exposed, call)]);
  } catch (err) {
    // The call has happened (or was refused); the client still gets its answer, and operators see why the entry is missing.
    console.error('[mcp] audit entry not written:', errorSummary(err));
  }
}
