import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

import type { ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredAuditToolCall } from '@/db/stored-json';
import { FINISHED_CALL_STATUSES, isOneOf, type AuditOutcome } from '@/db/vocabulary';

import type { AuditAppend } from './append';

/** Built-in (first-party) servers have ids `builtin-<namespace>` (lib/mcp/types.ts); the host's own tool is `host`. */
function isFirstParty(serverId: string | null): boolean {
  return serverId !== null && (serverId.startsWith('builtin-') || serverId === 'host');
}

/** Is this call at an end state (the moment its audit entry is written)? */
export function isAuditable(call: ToolCallRow): call is ToolCallRow & { status: AuditOutcome } {
  return isOneOf(FINISHED_CALL_STATUSES, call.status);
}

/**
 * The audit entry of a call that reached its end. `proposedInput` is what the model asked for
 * (the call row holds the edited input once the person edited it); `conversationTitle` is copied
 * so the entry still reads well after the conversation is deleted.
 */
export function toolCallEntry(
  call: ToolCallRow & { status: AuditOutcome },
  ctx: { conversationTitle: string; proposedInput: unknown },
): AuditAppend & { content: StoredAuditToolCall } {
  const edited = call.decision?.editedFrom !== undefined;
  const content: StoredAuditToolCall = {
    v: 1,
    kind: 'tool_call',
    toolCallId: call.id,
    runId: call.runId,
    conversation: { id: call.conversationId, title: ctx.conversationTitle },
    server: { id: call.serverId, name: call.serverName },
    tool: call.tool,
    modelName: call.modelName,
    trust: call.trust,
    arguments: {
      proposed: edited ? ctx.proposedInput : call.input,
      proposedHash: call.decision?.editedFrom ?? call.argsHash,
      executed: call.input,
      executedHash: call.argsHash,
      edited,
    },
    verdict: verdictOf(call),
    grant: { id: call.verdict?.grantId ?? null, constraint: call.verdict?.constraint ?? null },
    outcome: call.status,
    timing: {
      proposedAt: call.createdAt.toISOString(),
      startedAt: call.startedAt?.toISOString() ?? null,
      endedAt: call.endedAt?.toISOString() ?? null,
      durationMs: call.startedAt && call.endedAt ? call.endedAt.getTime() - call.startedAt.getTime() : null,
    },
    attempts: call.attempts,
    ...(call.askedByCallId && { askedBy: { by: 'view' as const, toolCallId: call.askedByCallId } }),
    ...(call.inputResponses && { input: inputOf(call) }),
    result: call.result ? resultDigest(call) : null,
  };
  return { userId: call.userId, content };
}

function verdictOf(call: ToolCallRow): StoredAuditToolCall['verdict'] {
  const base = { rule: call.verdict?.reason ?? null, by: null, decision: null, reason: null, warnings: call.verdict?.warnings ?? [] };
  const d = call.decision;
  if (call.status === 'rejected') return { ...base, kind: 'rejected' };
  if (d?.kind === 'deny') return { ...base, kind: 'denied', by: d.by, decision: d.kind, reason: d.reason ?? null };
  if (d) return { ...base, kind: 'allowed', by: d.by, decision: d.kind };
  if (call.verdict?.verdict === 'auto') {
    // First-party read-only tools are on by policy, not by a stored grant: audited as `default`.
    return { ...base, kind: call.verdict.grantId === null && isFirstParty(call.serverId) ? 'default' : 'auto' };
  }
  return { ...base, kind: 'undecided' };
}

/** The person's last answers to the server's elicitation: how they answered each asked key, and where a link sent them. */
function inputOf(call: ToolCallRow): NonNullable<StoredAuditToolCall['input']> {
  const { by, at, responses } = call.inputResponses!;
  const answers: NonNullable<StoredAuditToolCall['input']>['answers'] = {};
  for (const [key, response] of Object.entries(responses)) {
    const params = call.inputRequests?.[key]?.params;
    const mode = params?.mode === 'url' ? 'url' : 'form';
    answers[key] = { mode, action: response.action, ...(mode === 'url' && params?.url && { url: params.url }) };
  }
  return { by, at, answers };
}

/** Size and SHA-256 of the tool_result block the model received, over its RFC 8785 encoding. */
function resultDigest(call: ToolCallRow): NonNullable<StoredAuditToolCall['result']> {
  const bytes = Buffer.from(canonicalize(call.result) ?? 'null', 'utf8');
  return {
    isError: call.isError === true,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    totalChars: call.resultTruncated ? call.resultChars : null,
    truncated: call.resultTruncated === true,
  };
}
