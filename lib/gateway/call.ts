import type { CallToolResult } from '@modelcontextprotocol/server';

import type { Db } from '@/db/connection';
import { markAccessTokenTainted } from '@/db/queries/access-tokens';
import { listPoliciesOfUser } from '@/db/queries/orgs';
import { hitRateLimit } from '@/db/queries/rate-limits';
import type { AuditOutcome, AuditVerdict } from '@/db/vocabulary';
import { argsHash } from '@/lib/agent/args-hash';
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

import { clientCallEntry } from './audit-entry';
import type { ExposableTool } from './catalog';
import type { GatewayPrincipal } from './principal';

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
 * - **A call that asks**: nobody can be asked yet (no inbox for other clients, no elicitation), so
 *   it is not run and the client gets an `isError` result saying so and where the person can run it.
 *
 * Every call that reached a tool is in the person's audit log under the client's name, refused
 * ones included. Calls are limited per token (`mcpCallsPerMinute`).
 */

export interface ClientCallDeps {
  db: Db;
  tools: ToolHost;
  auditKeys: () => Promise<AuditKeyring>;
}

const RATE_WINDOW_MS = 60_000;

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Counts the call against the token's per-minute limit; the refusal in words, or null. */
export async function rateLimited(deps: ClientCallDeps, p: GatewayPrincipal): Promise<CallToolResult | null> {
  const max = limitsFor(p.plan).mcpCallsPerMinute;
  const count = await hitRateLimit(deps.db, `mcp-calls:${p.client.id}`, RATE_WINDOW_MS);
  if (count <= max) return null;
  return errorResult(limitExceeded('mcpCallsPerMinute', max, 'Wait a minute before calling again.', p.plan).message);
}

export async function callExposedTool(
  deps: ClientCallDeps,
  p: GatewayPrincipal,
  exposed: ExposableTool,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallToolResult> {
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
    org: orgToolVerdict(await listPoliciesOfUser(deps.db, p.userId), tool),
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
  if (judged.verdict === 'ask') {
    const text =
      `${name} was not run: it needs the person's approval in Switchboard (${judged.reason}), and approving calls from MCP clients ` +
      `is not available yet. They can run it from a conversation at ${p.origin}/ instead. Do not retry it.`;
    return record({ kind: 'undecided', rule: judged.reason, warnings: judged.warnings }, 'rejected', null, errorResult(text));
  }

  const startedAt = new Date();
  const outcome = await deps.tools.gateway.callTool(server, tool.name, input, {
    caller: { userId: p.userId },
    signal,
    timeoutMs: server.timeoutMs,
    inputSchema: tool.inputSchema,
  });
  if (server.trustContent !== true && CARRIES_SERVER_TEXT[outcome.kind]) {
    await markAccessTokenTainted(
      deps.db,
      p.client.id,
      taintOf('result', { serverId: server.id, serverName: server.displayName, tool: tool.name }),
    );
  }
  const { result, status } = toClientResult(outcome, name, server.displayName);
  return record({ kind: 'auto', rule: judged.reason, warnings: judged.warnings }, status, startedAt, result);
}

/** Which outcomes bring the server's own words back to the client (a timeout or a cancel is in ours). */
const CARRIES_SERVER_TEXT: Record<CallOutcome['kind'], boolean> = {
  result: true,
  failed: true,
  input_required: true,
  timeout: false,
  cancelled: false,
  needs_sign_in: false,
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
