import { z } from 'zod';

import type { EventRow } from '@/db/queries/events';
import { storedDecision, storedInputRequests, storedMessageContent, storedRunError, storedToolResult, storedUsage } from '@/db/stored-json';
import {
  DECISION_KINDS,
  RUN_STATUSES,
  SIGN_IN_REASONS,
  TASK_STATUSES,
  TOOL_CALL_STATUSES,
  TRUST_LEVELS,
  VERDICTS,
  WAIT_REASONS,
} from '@/db/vocabulary';
import { resultView } from '@/lib/mcp/result-view';

import type { BusEvent, RunEventType } from './events';
import { hintsOf } from './tool-call-view';

/**
 * The data of every stored event, one schema per event name (lib/agent/events.ts). Writers are
 * typed by it (`EventSink.persist`), and rows read back from the log — for SSE replay, or a bus
 * notification too large to travel inline — are parsed through it. An event stored by an older
 * release (version 0: a tool call in the view the browser got before `ToolCallView` was made for
 * it) is converted here, so replaying an old log gives today's shapes.
 */

// ── the browser's view of a tool call ──────────────────────────────────────────────────────
const resultPart = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('output'), text: z.string() }),
  z.object({ kind: z.literal('image'), mediaType: z.string(), data: z.string() }),
  z.object({ kind: z.literal('note'), text: z.string() }),
]);
const resultViewSchema = z.object({ isError: z.boolean(), parts: z.array(resultPart), chars: z.number(), truncated: z.boolean() });

/** What both versions of the view carry alike. */
const toolCallBase = {
  id: z.string(),
  runId: z.string(),
  toolUseId: z.string(),
  status: z.enum(TOOL_CALL_STATUSES),
  /** The server's display name; null when the model named no offered tool. */
  server: z.string().nullable(),
  tool: z.string().nullable(),
  modelName: z.string(),
  /** The exact arguments (edited ones after edit-then-approve). */
  input: z.unknown(),
  argsHash: z.string(),
  trust: z.enum(TRUST_LEVELS).nullable(),
  /** The model step that asked for it: calls of one step run side by side. */
  step: z.number().nullable().default(null),
  /** When the model asked for it; with startedAt and endedAt it places the call on the turn's timeline. */
  proposedAt: z.string().nullable().default(null),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
};

const signInView = z.object({
  serverId: z.string(),
  serverName: z.string(),
  scopes: z.array(z.string()),
  reason: z.enum(SIGN_IN_REASONS),
});

const taskView = z.object({ status: z.enum(TASK_STATUSES), statusMessage: z.string().nullable() });

const allowForSessionView = z.object({ offered: z.boolean(), why: z.string().nullable() });

export const toolCallViewSchema = z.object({
  ...toolCallBase,
  /** The server's hints, as badges; `annotated` is false when it gave none ("not annotated"). */
  hints: z.object({ annotated: z.boolean(), readOnly: z.boolean(), destructive: z.boolean(), openWorld: z.boolean() }),
  verdict: z.object({ verdict: z.enum(VERDICTS), reason: z.string(), warnings: z.array(z.string()) }).nullable(),
  decision: z.object({ kind: z.enum(DECISION_KINDS), reason: z.string().nullable(), edited: z.boolean() }).nullable(),
  result: resultViewSchema.nullable(),
  /** What a server asked the person (elicitation), while the call waits for the answer. */
  inputRequests: storedInputRequests.nullable(),
  /**
   * Which question that is, while the call waits for the answer: an answer names it (`round` of
   * `POST …/input`), so one sent for an earlier question after the call moved on is refused.
   */
  inputRound: z.number().nullable().default(null),
  /** The server the person must sign in to, while the call waits for that (absent before it existed). */
  signIn: signInView.nullable().default(null),
  /** What it waited for before it could finish: the person's decision or answer (null when nothing). */
  waitedFor: z.enum(WAIT_REASONS).nullable().default(null),
  /**
   * Whether the card offers "Allow for this session", and if not why: never for a destructive
   * tool, nor for one that is not read-only while the conversation is tainted. Views stored
   * before it existed read as not offered.
   */
  allowForSession: allowForSessionView.default({ offered: false, why: null }),
  /** Whether its tool declared an interactive view (MCP Apps), shown once the call has a result. */
  hasView: z.boolean().default(false),
  /** Asked by the interactive view of another call (MCP Apps), not by the model: the cards say so. */
  askedByView: z.boolean().default(false),
  /** Its server's views are switched off (servers page): the card shows the text result and a note, no frame. */
  viewsOff: z.boolean().default(false),
  /** A copy of a shared conversation's call (a fork): its view stayed with the original; the card shows the note, no frame. */
  viewCopy: z.boolean().default(false),
  /** With `askedByView`: the call whose view asked (its card shows this one). */
  viewOf: z.string().nullable().default(null),
  /** What its interactive view last said the model should know of it (`ui/update-model-context`), shown on the card. */
  viewContext: z
    .object({ at: z.string(), text: z.string(), structured: z.record(z.string(), z.unknown()).nullable() })
    .nullable()
    .default(null),
  /** The task the server runs the call as (MCP Tasks), as last stored; live changes come as `tool_call.task_status`. */
  task: taskView.nullable().default(null),
});

/** Version 0: the row's own fields, with the policy, the raw decision and the model's result block. */
const toolCallViewV0 = z
  .looseObject({
    ...toolCallBase,
    annotations: z.record(z.string(), z.unknown()).nullish(),
    policy: z.object({ decision: z.enum(VERDICTS), reason: z.string(), warnings: z.array(z.string()).optional() }).nullish(),
    decision: storedDecision.nullish(),
    result: storedToolResult.nullish(),
    inputRequests: storedInputRequests.nullish(),
  })
  .transform(({ annotations, policy, decision, result, inputRequests, ...same }): z.output<typeof toolCallViewSchema> => ({
    ...pick(same, Object.keys(toolCallBase) as (keyof typeof toolCallBase)[]),
    hints: hintsOf(annotations ?? {}),
    verdict: policy ? { verdict: policy.decision, reason: policy.reason, warnings: policy.warnings ?? [] } : null,
    decision: decision ? { kind: decision.kind, reason: decision.reason ?? null, edited: decision.editedFrom !== undefined } : null,
    result: result ? resultView(result) : null,
    inputRequests: same.status === 'awaiting_input' ? (inputRequests ?? null) : null,
    inputRound: null,
    signIn: null,
    waitedFor: decision ? 'approval' : null,
    allowForSession: { offered: false, why: null },
    hasView: false,
    askedByView: false,
    viewOf: null,
    viewsOff: false,
    viewCopy: false,
    viewContext: null,
    task: null,
  }));

/** Only the named keys: version 0 carried fields (the server id, the error flag) the view no longer sends. */
function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}

const toolCallPayload = z.object({ toolCall: z.union([toolCallViewSchema, toolCallViewV0]) });

// ── the other events ───────────────────────────────────────────────────────────────────────
const runEnd = z.object({
  status: z.enum(RUN_STATUSES),
  stopReason: z.string(),
  usage: storedUsage,
  error: storedRunError.optional(),
});

export const EVENT_PAYLOADS = {
  'run.started': z.object({ model: z.string() }),
  'message.delta': z.object({
    messageId: z.string(),
    blockIndex: z.number(),
    offset: z.number(),
    text: z.string(),
    /** The model's thinking (extended thinking), shown folded; absent for the answer's text. */
    kind: z.literal('thinking').optional(),
  }),
  'message.completed': z.object({
    messageId: z.string(),
    message: z.object({
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      content: storedMessageContent,
      stopReason: z.string().nullable(),
    }),
  }),
  /**
   * The streamed text of a message that will never be stored: the instance that streamed it
   * stopped (crashed, stalled) and the one that took the run over redoes the step under a new
   * message id (./take-over.ts). A reader drops that message's text; SSE replay leaves it out.
   */
  'message.discarded': z.object({ messageId: z.string(), reason: z.enum(['taken_over']) }),
  'tool_call.proposed': toolCallPayload,
  'tool_call.approval_requested': toolCallPayload,
  'tool_call.decided': toolCallPayload,
  'tool_call.input_requested': toolCallPayload,
  'tool_call.sign_in_requested': toolCallPayload,
  'tool_call.started': toolCallPayload,
  'tool_call.progress': z.object({
    toolCallId: z.string(),
    progress: z.number(),
    total: z.number().optional(),
    message: z.string().optional(),
  }),
  /** The server answered with a task (MCP Tasks): the call runs on there, followed until the task ends. */
  'tool_call.task': toolCallPayload,
  /** Live only: the task's status or message changed (its progress, in the server's words). */
  'tool_call.task_status': z.object({ toolCallId: z.string(), ...taskView.shape }),
  'tool_call.completed': toolCallPayload,
  'run.awaiting_approval': z.object({ status: z.literal('awaiting_approval'), toolCallIds: z.array(z.string()) }),
  'run.awaiting_input': z.object({ status: z.literal('awaiting_input'), toolCallIds: z.array(z.string()) }),
  'run.awaiting_sign_in': z.object({
    status: z.literal('awaiting_sign_in'),
    toolCallIds: z.array(z.string()),
    /** Every server the run waits for (it goes on once the person has signed in to all). */
    servers: z.array(z.object({ serverId: z.string(), serverName: z.string() })),
  }),
  /** A model call failed before its first byte and is tried again after `delayMs` (lib/agent/model-retry.ts). */
  'run.retrying': z.object({ attempt: z.number(), delayMs: z.number(), status: z.number().nullable(), message: z.string() }),
  /**
   * The history neared the model's window and its oldest messages (seq ≤ throughSeq) were
   * summarized: the summary is sent in their place from now on; the page marks where it ends.
   */
  'history.summarized': z.object({ summaryId: z.string(), throughSeq: z.number(), throughMessageId: z.string(), text: z.string() }),
  'run.completed': runEnd,
  'run.failed': runEnd,
  'run.cancelled': runEnd,
} as const satisfies Record<RunEventType, z.ZodType>;

/** What an event of this name carries, as writers give it (the current version). */
export type EventPayload<T extends RunEventType> = z.output<(typeof EVENT_PAYLOADS)[T]>;

export function isRunEventType(type: string): type is RunEventType {
  return Object.hasOwn(EVENT_PAYLOADS, type);
}

/**
 * A stored event's data through its schema. Null for a name this release does not know (a newer
 * release wrote it; the reader skips it); throws when a known event has a shape no version fits.
 */
export function parseEventPayload(type: string, data: unknown, where: string): Record<string, unknown> | null {
  if (!isRunEventType(type)) return null;
  const parsed = EVENT_PAYLOADS[type].safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `The stored event ${where} (${type}) has an unknown shape: ${issue ? `${issue.path.join('.')}: ${issue.message}` : ''}`,
    );
  }
  return parsed.data;
}

/** A row of the log as it goes out: its data through its schema (a newer release's unknown event goes out as stored). */
export function toBusEvent(e: EventRow): BusEvent {
  const data = parseEventPayload(e.type, e.data, `${e.conversationId}#${e.seq}`) ?? e.data;
  return { conversationId: e.conversationId, runId: e.runId, type: e.type, seq: e.seq, data };
}
