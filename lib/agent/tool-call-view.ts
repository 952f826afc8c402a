import type { ToolCallRow } from '@/db/queries/tool-calls';
import type { StoredInputRequests } from '@/db/stored-json';
import type { DecisionKind, ToolCallStatus, Trust, Verdict } from '@/db/vocabulary';
import { resultView, type ResultView } from '@/lib/mcp/result-view';

/**
 * A tool call as the browser sees it (conversation JSON and events): made for the page, not the
 * model. It carries what the cards show and nothing else — no grant ids or constraints, no
 * deciding user, no stored full text — and the result as display parts, never the model's
 * wrapped `tool_result` block.
 */
export interface ToolCallView {
  id: string;
  runId: string;
  toolUseId: string;
  status: ToolCallStatus;
  /** The server's display name; null when the model named no offered tool. */
  server: string | null;
  tool: string | null;
  modelName: string;
  /** The exact arguments (edited ones after edit-then-approve). */
  input: unknown;
  argsHash: string;
  trust: Trust | null;
  hints: ToolHints;
  verdict: { verdict: Verdict; reason: string; warnings: string[] } | null;
  decision: { kind: DecisionKind; reason: string | null; edited: boolean } | null;
  result: ResultView | null;
  /** What a server asked the person (elicitation), while the call waits for the answer. */
  inputRequests: StoredInputRequests | null;
  startedAt: string | null;
  endedAt: string | null;
}

/** The server's hints, as badges; `annotated` is false when it gave none ("not annotated"). */
export interface ToolHints {
  annotated: boolean;
  readOnly: boolean;
  destructive: boolean;
  openWorld: boolean;
}

export function toToolCallView(c: ToolCallRow): ToolCallView {
  const a = c.annotations ?? {};
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
    hints: {
      annotated: ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].some((k) => typeof a[k] === 'boolean'),
      readOnly: a.readOnlyHint === true,
      destructive: a.destructiveHint === true,
      openWorld: a.openWorldHint === true,
    },
    verdict: c.verdict ? { verdict: c.verdict.verdict, reason: c.verdict.reason, warnings: c.verdict.warnings } : null,
    decision: c.decision ? { kind: c.decision.kind, reason: c.decision.reason ?? null, edited: c.decision.editedFrom !== undefined } : null,
    result: c.result ? resultView(c.result, { chars: c.resultChars, truncated: c.resultTruncated }) : null,
    inputRequests: c.status === 'awaiting_input' ? c.inputRequests : null,
    startedAt: c.startedAt?.toISOString() ?? null,
    endedAt: c.endedAt?.toISOString() ?? null,
  };
}
