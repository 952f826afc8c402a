import type Anthropic from '@anthropic-ai/sdk';

import type { Db } from '@/db/connection';
import type { RunRow } from '@/db/queries/runs';
import { readToolsRev } from '@/db/queries/step-state';
import { toolCallSwapSql, type ToolCallPatch, type ToolCallRow } from '@/db/queries/tool-calls';
import { FINISHED_CALL_STATUSES, isOneOf } from '@/db/vocabulary';
import { isTrustedRepeatable } from '@/lib/consent/policy';
import { errorToolResult, readMoreNote, toToolResult } from '@/lib/mcp/to-tool-result';
import type { CallOutcome, McpCallResult, McpServerConfig, ProgressUpdate, ToolAnnotations, Trust } from '@/lib/mcp/types';

import { auditEndedCalls } from './audit-calls';
import type { EngineDeps } from './deps';
import { follow, hasTask, startFollowing } from './follow-task';
import { HOST_SERVER, READ_RESULT_TOOL_NAME, readStoredResult } from './read-result-tool';
import { callsNoLongerAllowed, notRunMessage, type NotAllowed } from './recheck';
import { SEARCH_TOOLS_TOOL, searchTools } from './search-tools-tool';
import { onlyTools } from './step-offer';
import { keepWithinStoredQuota, quotaFullNote } from './stored-results';
import { callTaint, markOfferTaint } from './taint';
import { DEFAULT_TOOL_SEARCH, keyOf, roomBesideSearch } from './tool-budget';
import { toToolCallView } from './tool-call-view';
import { offerTools, type ToolHost } from './tool-host';

const RUNNABLE = new Set(['auto_approved', 'approved', 'executing']);

/**
 * Runs every decided call of a step in parallel, each with its own timeout, after asking the
 * grant source once more whether each may still run (./recheck.ts). A call found in
 * `executing` was interrupted by a crash: it is run again only if a trusted server says that is
 * safe, else it is recorded as `unknown`. Returns the step's calls as they now stand when every
 * one of them finished, else null (some wait for a person or were not this drive's to end: read them).
 */
export async function executeCalls(
  deps: EngineDeps,
  host: ToolHost,
  run: RunRow,
  calls: ToolCallRow[],
  signal: AbortSignal,
  plan?: string | null,
): Promise<ToolCallRow[] | null> {
  // Only whether anything changed is read again: servers and grants read at the same revision still hold.
  const toolsRev = (await readToolsRev(deps.db, run.userId)) ?? undefined;
  const servers = await host.serversFor(run.userId, { toolsRev });
  const runnable = calls.filter((c) => RUNNABLE.has(c.status));
  const refused = await callsNoLongerAllowed(host, run, runnable, servers, { plan, toolsRev });
  const done = await Promise.all(
    runnable.map((c) => {
      const notAllowed = refused.get(c.id);
      return notAllowed ? refuse(deps, c, notAllowed) : executeOne(deps, host, run, c, servers, signal);
    }),
  );
  // Every call finished, each by this drive's own write: nobody else can change them now (a
  // finished call is never released again), so the step can close without reading them back.
  const byId = new Map(done.filter((r): r is ToolCallRow => r !== null).map((r) => [r.id, r]));
  const settled = calls.map((c) => byId.get(c.id) ?? c);
  return settled.every((c) => c.result && isOneOf(FINISHED_CALL_STATUSES, c.status)) ? settled : null;
}

/** A call whose grant no longer holds (or that would now ask): it is not run, and the model is told why. */
async function refuse(deps: EngineDeps, call: ToolCallRow, notAllowed: NotAllowed): Promise<ToolCallRow | null> {
  const why = notAllowed.why;
  const message = notRunMessage(call.modelName, notAllowed);
  return complete(deps, call, {
    status: 'rejected',
    verdict: { v: 1, verdict: 'reject', reason: why, warnings: [], grantId: call.verdict?.grantId ?? null, constraint: null },
    result: errorToolResult(call.toolUseId, message),
    isError: true,
  });
}

async function executeOne(
  deps: EngineDeps,
  host: ToolHost,
  run: RunRow,
  call: ToolCallRow,
  servers: McpServerConfig[],
  signal: AbortSignal,
): Promise<ToolCallRow | null> {
  const tool = { trust: (call.trust ?? 'untrusted') as Trust, annotations: (call.annotations ?? {}) as ToolAnnotations };
  // Interrupted while its server ran it as a task: the task goes on there, and is followed, not called again.
  if (call.status === 'executing' && hasTask(call)) return followInterrupted(deps, host, run, call, servers, signal);
  if (call.status === 'executing' && !isTrustedRepeatable(tool)) {
    return complete(deps, call, {
      status: 'unknown',
      result: errorToolResult(
        call.toolUseId,
        `The outcome of ${call.modelName} is unknown: Switchboard was interrupted while it ran. Verify its effect before retrying.`,
      ),
      isError: true,
    });
  }
  if (call.serverId === HOST_SERVER.id) return runHostCall(deps, host, run, call);
  const server = servers.find((s) => s.id === call.serverId);
  if (!server) {
    return complete(deps, call, {
      status: 'errored',
      result: errorToolResult(call.toolUseId, `The server of ${call.modelName} is no longer available.`),
      isError: true,
    });
  }

  let current = call;
  let outcome: CallOutcome | undefined;
  // Believed only if it was when proposed and still is: a person who stops trusting the server's
  // content meanwhile is heard. Stored with the outcome, so the taint read later is what held here.
  const contentTrusted = call.contentTrusted && server.trustContent === true;
  const taint = callTaint(deps.db, call, !contentTrusted);
  const onProgress = (p: ProgressUpdate) => {
    taint.progress(p);
    deps.events.live(run.conversationId, run.id, 'tool_call.progress', { toolCallId: current.id, ...p });
  };
  // One retry for what a trusted server says is safe to repeat.
  for (let attempt = 0; attempt < (isTrustedRepeatable(tool) ? 2 : 1); attempt++) {
    const patch: ToolCallPatch = { status: 'executing', attempts: current.attempts + 1, startedAt: new Date() };
    const started = { ...current, ...patch, version: current.version + 1 } as ToolCallRow;
    // The swap and its event in one statement: nothing is announced for a call someone else runs.
    const swapped = await deps.events.storeWith(
      deps.db,
      run.conversationId,
      run.id,
      [{ type: 'tool_call.started', data: { toolCall: toToolCallView(started) } }],
      { guard: toolCallSwapSql(deps.db, current.id, current.version, deps.instanceId, patch) },
    );
    if (!swapped) return null; // someone else is running it, or our lease is gone
    current = started;
    outcome = await host.gateway.callTool(server, current.tool!, current.input as Record<string, unknown>, {
      caller: { userId: run.userId, conversationId: run.conversationId },
      signal,
      timeoutMs: server.timeoutMs,
      maxTotalTimeoutMs: server.timeoutMs * 10,
      onProgress,
      resume: current.requestState || current.inputRequests ? resumeOf(current) : undefined,
      // The schema as listed: its `x-mcp-header` arguments travel as `Mcp-Param-*` headers (2026-07-28).
      ...(current.inputSchema && { inputSchema: current.inputSchema }),
      ...(current.taskSupport && { taskSupport: current.taskSupport }),
    });
    if (outcome.kind === 'task') {
      // Run as a task on the server (MCP Tasks): stored on the call, then followed to its end.
      const followed = await startFollowing(deps, host, run, current, server, outcome.task, signal, taint);
      if (!followed.call) return null;
      return storeOutcome(deps, followed.call, server, followed.outcome, { contentTrusted, taint, task: followed.task });
    }
    if ((outcome.kind !== 'timeout' && outcome.kind !== 'failed') || signal.aborted) break;
  }
  return storeOutcome(deps, current, server, outcome!, { contentTrusted, taint });
}

async function followInterrupted(
  deps: EngineDeps,
  host: ToolHost,
  run: RunRow,
  call: ToolCallRow & { task: NonNullable<ToolCallRow['task']> },
  servers: McpServerConfig[],
  signal: AbortSignal,
): Promise<ToolCallRow | null> {
  const server = servers.find((s) => s.id === call.task.serverId);
  if (!server) {
    return complete(deps, call, {
      status: 'errored',
      result: errorToolResult(call.toolUseId, `The server running the task of ${call.modelName} is no longer available.`),
      isError: true,
    });
  }
  const contentTrusted = call.contentTrusted && server.trustContent === true;
  const taint = callTaint(deps.db, call, !contentTrusted);
  const followed = await follow(deps, host, run, call, server, signal, taint);
  return storeOutcome(deps, call, server, followed.outcome, { contentTrusted, taint, task: followed.task });
}

/**
 * A server call's outcome, stored: the same result mapping, quota, taint and audit whether it
 * answered at once or was followed as a task (`task`: kept on the call with its end).
 */
async function storeOutcome(
  deps: EngineDeps,
  call: ToolCallRow,
  server: McpServerConfig,
  ran: CallOutcome,
  opts: { contentTrusted: boolean; taint: ReturnType<typeof callTaint>; task?: NonNullable<ToolCallRow['task']> },
): Promise<ToolCallRow | null> {
  await opts.taint.outcome(ran);
  const kept = { contentTrusted: opts.contentTrusted, ...(opts.task && { task: opts.task }) };
  const overQuota =
    ran.kind === 'result' ? (quota: number) => ({ ...resultPatch(call, server, ran.result, quotaFullNote(quota)), ...kept }) : undefined;
  return complete(deps, call, { ...patchFor(call, server, ran), ...kept }, overQuota, server.showViews === false);
}

/** The host's own tools: answered here, never by a server. */
async function runHostCall(deps: EngineDeps, host: ToolHost, run: RunRow, call: ToolCallRow): Promise<ToolCallRow | null> {
  if (call.tool === SEARCH_TOOLS_TOOL.name) return runToolSearch(deps, host, run, call);
  const result = await readStoredResult(deps.db, call.conversationId, call.toolUseId, call.input);
  const isError = result.is_error === true;
  return complete(deps, call, { status: isError ? 'errored' : 'succeeded', result, isError, startedAt: new Date() });
}

async function runToolSearch(deps: EngineDeps, host: ToolHost, run: RunRow, call: ToolCallRow): Promise<ToolCallRow | null> {
  const startedAt = new Date();
  // Searched over what this run may use now: a grant revoked since the step began is not found.
  const enabled = await offerTools(host, {
    userId: run.userId,
    conversationId: run.conversationId,
    sessionId: run.sessionId,
    clientId: run.clientId,
  });
  const { result, found } = searchTools(enabled, call.toolUseId, call.input, roomBesideSearch(deps.toolSearch ?? DEFAULT_TOOL_SEARCH));
  // The answer quotes the found tools' descriptions: an untrusted server's taint the conversation.
  await markOfferTaint(deps.db, run.conversationId, onlyTools(enabled, new Set(found.map(keyOf))));
  const isError = result.is_error === true;
  // Stored with the result in one write: whoever runs the next step offers what was found.
  return complete(deps, call, {
    status: isError ? 'errored' : 'succeeded',
    result,
    isError,
    startedAt,
    foundTools: { v: 1, tools: found },
  });
}

function resumeOf(call: ToolCallRow) {
  const responses = call.inputResponses?.responses;
  return responses ? { inputResponses: responses, requestState: call.requestState ?? undefined } : undefined;
}

export function patchFor(call: ToolCallRow, server: McpServerConfig, outcome: CallOutcome): ToolCallPatch {
  switch (outcome.kind) {
    case 'result':
      return resultPatch(call, server, outcome.result, readMoreNote(READ_RESULT_TOOL_NAME, call.id));
    case 'input_required':
      return { status: 'awaiting_input', inputRequests: outcome.inputRequests, requestState: outcome.requestState ?? null };
    case 'needs_sign_in':
      // The server refused before running anything: the call waits for the person, then runs.
      return {
        status: 'awaiting_sign_in',
        signIn: {
          v: 1,
          serverId: outcome.serverId,
          serverName: outcome.serverName,
          ...(outcome.scopes?.length ? { scopes: outcome.scopes } : {}),
          reason: outcome.reason,
          at: new Date().toISOString(),
        },
      };
    case 'timeout':
      return {
        status: 'timed_out',
        result: errorToolResult(call.toolUseId, `${call.modelName} timed out: ${outcome.message}`),
        isError: true,
      };
    case 'cancelled':
      return {
        status: 'cancelled',
        // A task the server cancelled itself: its words, not a Stop the person never pressed.
        result: errorToolResult(
          call.toolUseId,
          outcome.byServer
            ? `${call.modelName} was cancelled: ${outcome.message}`
            : `${call.modelName} was cancelled because the person stopped the run.`,
        ),
        isError: true,
      };
    case 'failed':
      return { status: 'errored', result: errorToolResult(call.toolUseId, `${call.modelName} failed: ${outcome.message}`), isError: true };
    case 'task':
      // Followed before an outcome is stored (./follow-task.ts); a task here was never followed.
      return {
        status: 'errored',
        result: errorToolResult(call.toolUseId, `${call.modelName} started a task that was not followed.`),
        isError: true,
      };
  }
}

function resultPatch(
  call: ToolCallRow,
  server: McpServerConfig,
  result: McpCallResult,
  truncationNote: (shown: number, total: number) => string,
): ToolCallPatch {
  const mapped = toToolResult({
    toolUseId: call.toolUseId,
    serverName: server.displayName,
    tool: call.tool!,
    outcome: result,
    outputSchema: call.outputSchema ?? undefined,
    truncationNote,
  });
  const isError = mapped.block.is_error === true;
  const block = withEditNote(mapped.block, call);
  return {
    status: isError ? 'errored' : 'succeeded',
    result: block,
    isError,
    fullText: mapped.truncated ? (mapped.fullText ?? null) : null,
    resultChars: mapped.totalChars,
    resultTruncated: mapped.truncated,
  };
}

/** The model asked for other arguments than the ones that ran: it must be told which ran. */
function withEditNote(block: Anthropic.ToolResultBlockParam, call: ToolCallRow): Anthropic.ToolResultBlockParam {
  if (!call.decision?.editedFrom) return block;
  const note = {
    type: 'text' as const,
    text: `Note from Switchboard: the person edited the arguments before approving. The call ran with ${JSON.stringify(call.input)}.`,
  };
  const content = typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : (block.content ?? []);
  return { ...block, content: [note, ...content] };
}

/**
 * Stores a call's outcome, only while this instance still holds the run's lease and the call is
 * as this drive last wrote it (a Stop that closed it meanwhile stands). A full result text is
 * kept only within the user's stored-results quota; `overQuota` says what to store instead. The
 * outcome, its event and its audit entry commit together.
 */
async function complete(
  deps: EngineDeps,
  call: ToolCallRow,
  patch: ToolCallPatch,
  overQuota?: (quotaBytes: number) => ToolCallPatch,
  /** Its server's interactive views are switched off: the live card shows the note, not a frame (as a re-read would). */
  viewsOff = false,
): Promise<ToolCallRow | null> {
  const waiting = patch.status === 'awaiting_input' || patch.status === 'awaiting_sign_in';
  const endedAt = waiting ? null : new Date();
  const write = async (tx: Db, p: ToolCallPatch) => {
    const swap = { ...p, endedAt };
    const done = { ...call, ...swap, version: call.version + 1 } as ToolCallRow;
    const swapped = await deps.events.storeWith(
      tx,
      call.conversationId,
      call.runId,
      [{ type: outcomeEvent(done.status), data: { toolCall: { ...toToolCallView(done), viewsOff } } }],
      { guard: toolCallSwapSql(tx, call.id, call.version, deps.instanceId, swap) },
    );
    if (!swapped) return null;
    await auditEndedCalls(tx, deps, [done], new Map([[call.conversationId, swapped.conversationTitle]]));
    return done;
  };
  const { fullText } = patch;
  return fullText && overQuota
    ? keepWithinStoredQuota(deps.db, call.userId, { ...patch, fullText }, overQuota, write)
    : deps.db.transaction((tx) => write(tx, patch));
}

/** The event that says how a call came out: a question for the person, a sign-in to ask for, or its end. */
function outcomeEvent(status: ToolCallRow['status']): 'tool_call.input_requested' | 'tool_call.sign_in_requested' | 'tool_call.completed' {
  return status === 'awaiting_input'
    ? 'tool_call.input_requested'
    : status === 'awaiting_sign_in'
      ? 'tool_call.sign_in_requested'
      : 'tool_call.completed';
}
