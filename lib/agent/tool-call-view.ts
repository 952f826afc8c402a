import type { z } from 'zod';

import type { ToolCallRow } from '@/db/queries/tool-calls';
import { callRan, type WaitReason } from '@/db/vocabulary';
import { autoApproveProblem } from '@/lib/consent/auto-approve';
import { holdsPrivateData } from '@/lib/mcp/builtin';
import { resultView } from '@/lib/mcp/result-view';

import type { toolCallViewSchema } from './event-payloads';

/**
 * A tool call as the browser sees it (conversation JSON and events): made for the page, not the
 * model. It carries what the cards show and nothing else — no grant ids or constraints, no
 * deciding user, no stored full text — and the result as display parts, never the model's
 * wrapped `tool_result` block. Its shape is declared once, as a schema, in ./event-payloads.ts.
 */
export type ToolCallView = z.output<typeof toolCallViewSchema>;
export type ToolHints = ToolCallView['hints'];

export function toToolCallView(c: ToolCallRow): ToolCallView {
  return {
    id: c.id,
    runId: c.runId,
    toolUseId: c.toolUseId,
    status: c.status,
    server: c.serverName,
    tool: c.tool,
    modelName: c.modelName,
    input: c.input,
    argsHash: c.argsHash,
    trust: c.trust,
    hints: hintsOf(c.annotations ?? {}),
    verdict: c.verdict ? { verdict: c.verdict.verdict, reason: c.verdict.reason, warnings: c.verdict.warnings } : null,
    decision: c.decision ? { kind: c.decision.kind, reason: c.decision.reason ?? null, edited: c.decision.editedFrom !== undefined } : null,
    result: c.result ? resultView(c.result, { chars: c.resultChars, truncated: c.resultTruncated }) : null,
    inputRequests: c.status === 'awaiting_input' ? c.inputRequests : null,
    // The row's version while it waits: nothing but an answer or an end moves it then (lib/agent/answer-input.ts).
    inputRound: c.status === 'awaiting_input' ? c.version : null,
    // A model's call while it waits; a view's call that ended for want of one (lib/agent/view-calls.ts), for its Connect.
    signIn:
      (c.status === 'awaiting_sign_in' || (c.askedByCallId !== null && c.status === 'errored')) && c.signIn
        ? { serverId: c.signIn.serverId, serverName: c.signIn.serverName, scopes: c.signIn.scopes ?? [], reason: c.signIn.reason }
        : null,
    step: c.step,
    proposedAt: c.createdAt.toISOString(),
    startedAt: c.startedAt?.toISOString() ?? null,
    endedAt: c.endedAt?.toISOString() ?? null,
    waitedFor: waitedFor(c),
    allowForSession: allowForSessionOf(c),
    // Only a call that ran shows its view (RAN_CALL_STATUSES says why).
    hasView: c.viewUri !== null && callRan(c.status),
    askedByView: c.askedByCallId !== null,
    viewOf: c.askedByCallId,
    viewsOff: false,
    // A live call with a view always names its server (the view is read through it); a fork's copy names none.
    viewCopy: c.viewUri !== null && c.serverId === null,
    viewContext: c.viewContext ? { at: c.viewContext.at, text: c.viewContext.text, structured: c.viewContext.structured ?? null } : null,
    task: c.task ? { status: c.task.status, statusMessage: c.task.statusMessage ?? null } : null,
  };
}

/** "Allow for this session" is offered only where it would take effect (lib/consent/auto-approve.ts). */
function allowForSessionOf(c: ToolCallRow): ToolCallView['allowForSession'] {
  if (!c.serverId || !c.tool || !c.trust) return { offered: false, why: 'It names no tool of a server.' };
  const tool = { trust: c.trust, annotations: c.annotations ?? {}, privateData: holdsPrivateData(c.serverId) };
  const why =
    autoApproveProblem(tool, c.verdict?.tainted === true) ?? (c.verdict && 'orgAsks' in c.verdict ? (c.verdict.orgAsks ?? null) : null);
  return { offered: why === null, why };
}

/** What the call waited for, as the timeline says it: a decision first, else an answer to the server, else a sign-in. */
function waitedFor(c: ToolCallRow): WaitReason | null {
  if (c.decision) return 'approval';
  if (c.inputRequests || c.inputResponses) return 'input';
  if (c.signIn) return 'sign_in';
  return null;
}

/** A tool's annotations as the badges the page shows; a hint the server left out counts as false. */
export function hintsOf(a: Record<string, unknown>): ToolHints {
  return {
    annotated: ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].some((k) => typeof a[k] === 'boolean'),
    readOnly: a.readOnlyHint === true,
    destructive: a.destructiveHint === true,
    openWorld: a.openWorldHint === true,
  };
}
