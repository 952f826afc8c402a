import { createHash, randomUUID } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';

import { markAccessTokenTainted } from '@/db/queries/access-tokens';
import { findUnansweredAsk, insertClientAsk, markClientAskAnswered, type ClientAskRow } from '@/db/queries/client-asks';
import { getConversation } from '@/db/queries/conversations';
import { getRun, type RunRow } from '@/db/queries/runs';
import { getConversationTaint } from '@/db/queries/taint';
import { ENDED_RUN_STATUSES, isOneOf, PAUSED_RUN_STATUSES, type AuditOutcome } from '@/db/vocabulary';
import { argsHash } from '@/lib/agent/args-hash';
import { RUN_END_EVENTS, RUN_PAUSE_EVENTS } from '@/lib/agent/events';
import { appendAudit } from '@/lib/audit/append';
import { runAnswer, startClientTurn } from '@/lib/chat/client-turn';
import type { ChatRuntime } from '@/lib/chat/runtime';
import { MAX_MESSAGE_CHARS } from '@/lib/chat/service';
import { AppError } from '@/lib/http/errors';
import { LimitExceeded } from '@/lib/limits';
import { errorSummary } from '@/lib/log-safe';

import { resultDigest } from './audit-entry';
import { errorResult, type ClientCallDeps } from './call';
import type { GatewayPrincipal } from './principal';

/**
 * Switchboard's own agent as a tool (issue 25): `switchboard_ask` runs a turn of a Switchboard
 * conversation — the person's model, instructions, plan and run limits, as the web chat does
 * (lib/chat/client-turn.ts) — and answers with its final text, the conversation's link and id.
 * Offered only to a client whose profile has `agentTool` (the person's switch on the Account page;
 * off by default). One underscore: no tool of a server is named so (theirs are `<namespace>__<tool>`).
 *
 * - **Consent**: the turn's tools are the client's profile (the run's grants, lib/consent/stored-grants.ts),
 *   decided by the same table: a call that asks pauses the run until the person decides on the
 *   conversation's card in Switchboard.
 * - **A bounded wait**: the call holds the client's request until the run ends, at most `waitMs`
 *   (MCP_ASK_WAIT_MS, under the SDK client's default 60 s timeout), with progress every few seconds
 *   saying what it waits for. Still running or waiting for the person then, it answers — not an
 *   error — that it is waiting, with the link and the id.
 * - **A retry never starts a second turn**: a call with the same prompt (and the same
 *   conversationId, or none) whose answer has not gone back within `ASK_RETRY_WINDOW_MS` waits for
 *   and returns that turn's answer (table `client_asks`). A prompt that differs is a new question;
 *   while a turn is in progress it is refused ("a turn is in progress").
 * - **Follow-ups** only in a conversation this client started (see `clientConversation`).
 * - **Audit**: one `client_call` entry per call, naming the client and the conversation; the turn's
 *   own tool calls are audited as the chat's are, in that conversation.
 */
export const ASK_TOOL_NAME = 'switchboard_ask';

/** How long a call that did not get its answer may be retried for it: longer than any client waits for a call. */
export const ASK_RETRY_WINDOW_MS = 60 * 60_000;
/** How often a waiting call reads its run again (a bus delivers at most once) and sends progress. */
const ASK_RECHECK_MS = 5_000;
const TITLE_MAX = 200;

export interface AskDeps extends ClientCallDeps {
  /** The conversation use-cases' wiring (the runtime): the turn starts as the web chat's does. */
  chat: ChatRuntime;
  /**
   * How long a call holds the client's request for the turn (MCP_ASK_WAIT_MS): under the SDK
   * client's default 60 s request timeout. Unset (test endpoints): `approvalWaitMs`.
   */
  askWaitMs?: number;
}

export const ASK_STATUSES = ['answered', 'waiting_for_person', 'working'] as const;
export type AskStatus = (typeof ASK_STATUSES)[number];

const askInput = z
  .object({
    prompt: z
      .string({ error: 'is required: the question or task for Switchboard' })
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`),
    conversationId: z.uuid({ error: 'must be the conversationId an earlier switchboard_ask answer gave' }).optional(),
    title: z.string({ error: 'must be text' }).max(TITLE_MAX, `must be at most ${TITLE_MAX} characters`).optional(),
  })
  .strict();

export function askTool(): Tool {
  return {
    name: ASK_TOOL_NAME,
    title: 'Ask Switchboard',
    description:
      "Delegates a question or task to the person's Switchboard agent: it runs a turn in a Switchboard conversation with their " +
      'model, instructions and tools (its tool calls need their consent, as in their chat) and returns its final answer, the ' +
      "conversation's link and id. Pass conversationId (from an earlier answer) to follow up in that conversation. When the " +
      'answer says it is still waiting (e.g. for the person to approve a tool call), call again later with the same prompt and ' +
      'conversationId: that returns the same turn’s answer, never starts a second one.',
    inputSchema: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'The question or task, as a message to the agent.', maxLength: MAX_MESSAGE_CHARS },
        conversationId: {
          type: 'string',
          format: 'uuid',
          description: 'Follow up in this conversation (one this client started; from an earlier answer). Leave out to start a new one.',
        },
        title: { type: 'string', maxLength: TITLE_MAX, description: "A new conversation's title (default: from the prompt)." },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: [...ASK_STATUSES] },
        conversationId: { type: 'string' },
        url: { type: 'string' },
        answer: { type: 'string' },
      },
      required: ['status', 'conversationId', 'url'],
    },
    annotations: { title: 'Ask Switchboard', readOnlyHint: false, destructiveHint: false, openWorldHint: true },
  };
}

export async function callAsk(
  deps: AskDeps,
  p: GatewayPrincipal,
  args: Record<string, unknown>,
  signal: AbortSignal,
  onWaiting?: (waitedMs: number, message?: string) => void,
): Promise<CallToolResult> {
  const parsed = askInput.safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'arguments';
    return errorResult(`Invalid input for ${ASK_TOOL_NAME}: ${field}: ${issue.message}. Nothing was started.`);
  }
  const { prompt, conversationId = null, title } = parsed.data;
  const startedAt = new Date();
  let conversation: { id: string; title: string } | undefined;
  const record = (outcome: AuditOutcome, result: CallToolResult) =>
    audit(deps, p, { args: parsed.data, outcome, startedAt, result, conversation }).then(() => result);
  try {
    const promptHash = createHash('sha256').update(prompt).digest('hex');
    // A retry of a call whose answer did not go back (by this client, in this conversation or none):
    // another person's or client's conversation finds none here, and startClientTurn refuses it.
    let ask: ClientAskRow | null = await findUnansweredAsk(deps.db, {
      userId: p.userId,
      clientId: p.client.id,
      promptHash,
      conversationId,
      since: new Date(Date.now() - ASK_RETRY_WINDOW_MS),
    });
    if (!ask) {
      const started = await startClientTurn(deps.chat, {
        userId: p.userId,
        client: { v: 1, ...p.client },
        prompt,
        conversationId,
        title,
        // Text the person never vouched for, when the client's context already holds an untrusted server's.
        taint: p.tainted,
      });
      ask = await insertClientAsk(deps.db, {
        userId: p.userId,
        clientId: p.client.id,
        conversationId: started.conversationId,
        runId: started.run.id,
        promptHash,
        followUp: conversationId !== null,
      });
    }
    const deleted = async (askRow: ClientAskRow) => {
      // Told once: a later call with this prompt is a new question.
      await markClientAskAnswered(deps.db, askRow.id);
      return record(
        'cancelled',
        errorResult(
          `The Switchboard turn did not finish: the person deleted its conversation ("${askRow.conversationId}"). ` +
            'Nothing was started again; call again to start anew.',
        ),
      );
    };
    const c = await getConversation(deps.db, p.userId, ask.conversationId);
    if (!c) return await deleted(ask);
    conversation = { id: c.id, title: c.title };
    const run = await awaitRun(deps, ask, signal, onWaiting);
    if (run === 'deleted') return await deleted(ask);
    // What goes back carries the conversation's text: untrusted content in it taints the client's
    // context, as its own calls' results do (./call.ts), so its next calls meet the taint rows.
    const taint = await getConversationTaint(deps.db, ask.conversationId);
    if (taint) await markAccessTokenTainted(deps.db, p.client.id, taint);
    const where = { conversationId: ask.conversationId, url: `${p.origin}/c/${ask.conversationId}` };
    if (!isOneOf(ENDED_RUN_STATUSES, run.status)) {
      const paused = isOneOf(PAUSED_RUN_STATUSES, run.status);
      const status: AskStatus = paused ? 'waiting_for_person' : 'working';
      const why = paused
        ? `is waiting for the person in Switchboard (${PAUSE_WORDS[run.status as keyof typeof PAUSE_WORDS]})`
        : 'is still working';
      const text =
        `The Switchboard turn ${why}; it goes on without you. See it at ${where.url}. To get its answer, call ${ASK_TOOL_NAME} ` +
        `again later with the same prompt and conversationId "${where.conversationId}" (this does not start another turn).`;
      return record('timed_out', { content: [{ type: 'text', text }], structuredContent: { status, ...where } });
    }
    await markClientAskAnswered(deps.db, ask.id);
    if (run.status === 'completed') {
      const answer = await runAnswer(deps.chat, ask.conversationId, run.id);
      const text = `${answer || '(The agent gave no text answer.)'}\n\n— Switchboard conversation ${where.url}`;
      return record('succeeded', { content: [{ type: 'text', text }], structuredContent: { status: 'answered', ...where, answer } });
    }
    const reason =
      run.status === 'cancelled' ? 'the person stopped it' : `it failed: ${run.error?.message ?? 'the model or a tool failed'}`;
    return record(
      run.status === 'cancelled' ? 'cancelled' : 'errored',
      errorResult(`The Switchboard turn did not finish: ${reason}. See ${where.url} (conversationId "${where.conversationId}").`),
    );
  } catch (err) {
    if (!(err instanceof AppError || err instanceof LimitExceeded)) {
      // Unforeseen (the database, the bus): the call is still in the audit log, as failed.
      await audit(deps, p, { args: parsed.data, outcome: 'errored', startedAt, result: errorResult(errorSummary(err)), conversation });
      throw err;
    }
    // A plan or run limit, another person's or an unknown conversation, a turn already in progress: said in words.
    return record('rejected', errorResult(`${ASK_TOOL_NAME} did not start a turn: ${err.message}`));
  }
}

const PAUSE_WORDS = {
  awaiting_approval: 'a tool call needs their approval',
  awaiting_input: 'a tool asked them a question',
  awaiting_sign_in: 'a server needs them to sign in',
} as const;

/**
 * The run once it has ended, or as it stands when `waitMs` has passed since the call began or the
 * client closed its request. Woken by the conversation's run events on the bus (any instance
 * drives it), and reads the row again every few seconds, since a bus delivers at most once.
 */
async function awaitRun(
  deps: AskDeps,
  ask: ClientAskRow,
  signal: AbortSignal,
  onWaiting?: (waitedMs: number, message?: string) => void,
): Promise<RunRow | 'deleted'> {
  const began = Date.now();
  const first = await getRun(deps.db, ask.runId);
  // No run: the person deleted the conversation (its runs go with it).
  if (!first) return 'deleted';
  let latest: RunRow = first;
  if (isOneOf(ENDED_RUN_STATUSES, latest.status) || signal.aborted) return latest;
  let gone = false;
  let done!: () => void;
  const over = new Promise<void>((resolve) => (done = resolve));
  const check = async () => {
    try {
      const read = await getRun(deps.db, ask.runId);
      if (!read) gone = true;
      else latest = read;
      if (gone || isOneOf(ENDED_RUN_STATUSES, latest.status)) done();
    } catch (err) {
      console.error('[mcp] ask: run read failed:', errorSummary(err));
    }
  };
  const unsubscribe = await deps.bus.subscribe(
    ask.conversationId,
    (event) => {
      if (RUN_END_EVENTS.has(event.type) || RUN_PAUSE_EVENTS.has(event.type)) void check();
    },
    () => void check(),
  );
  const deadline = setTimeout(done, Math.max(0, (deps.askWaitMs ?? deps.approvalWaitMs) - (Date.now() - began)));
  const recheck = setInterval(() => {
    // Said as the run stands: the person is asked for something, or the agent is at work.
    const paused = isOneOf(PAUSED_RUN_STATUSES, latest.status) ? PAUSE_WORDS[latest.status as keyof typeof PAUSE_WORDS] : null;
    onWaiting?.(Date.now() - began, paused ? `Waiting for the person in Switchboard: ${paused}` : "Switchboard's agent is working");
    void check();
  }, ASK_RECHECK_MS);
  signal.addEventListener('abort', done, { once: true });
  // Ended between the first read and the subscription: its event went by unheard.
  void check();
  try {
    await over;
    return gone ? 'deleted' : latest;
  } finally {
    clearTimeout(deadline);
    clearInterval(recheck);
    signal.removeEventListener('abort', done);
    unsubscribe();
  }
}

async function audit(
  deps: AskDeps,
  p: GatewayPrincipal,
  call: {
    args: z.infer<typeof askInput>;
    outcome: AuditOutcome;
    startedAt: Date;
    result: CallToolResult;
    conversation: { id: string; title: string } | undefined;
  },
) {
  const endedAt = new Date();
  try {
    await appendAudit(deps.db, await deps.auditKeys(), [
      {
        userId: p.userId,
        content: {
          v: 1,
          kind: 'client_call',
          callId: randomUUID(),
          client: p.client,
          server: { id: null, name: 'Switchboard' },
          tool: 'ask',
          name: ASK_TOOL_NAME,
          trust: 'trusted',
          arguments: { value: call.args, hash: argsHash(call.args) },
          verdict: { kind: 'auto', rule: "The person offered Switchboard's agent to this client.", warnings: [] },
          outcome: call.outcome,
          timing: {
            startedAt: call.startedAt.toISOString(),
            endedAt: endedAt.toISOString(),
            durationMs: endedAt.getTime() - call.startedAt.getTime(),
          },
          result: resultDigest(call.result),
          ...(call.conversation && { conversation: call.conversation }),
        },
      },
    ]);
  } catch (err) {
    console.error('[mcp] ask: audit entry not written:', errorSummary(err));
  }
}
