import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';

import type {
  StoredAnnotations,
  StoredDecision,
  StoredFoundTools,
  StoredInputRequests,
  StoredInputResponses,
  StoredSignIn,
  StoredTask,
  StoredToolResult,
  StoredVerdict,
  StoredViewContext,
} from '../stored-json';
import { TASK_SUPPORT, TOOL_CALL_STATUSES, TRUST_LEVELS } from '../vocabulary';
import { ownerRef } from './accounts';
import { createdAt } from './columns';
import { conversationRef, runs } from './conversations';

/** Tool calls and the tool catalogs they were offered from. */

// One row per tool_use block the model produced: what was asked, what was decided, what came
// back. It is both the run's working state and the audit log.
export const toolCalls = pgTable(
  'tool_calls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    conversationId: conversationRef(),
    userId: ownerRef(),
    step: integer('step').notNull(),
    // Position of the tool_use block in the assistant message: results go back in this order.
    position: integer('position').notNull(),
    toolUseId: text('tool_use_id').notNull(),
    // The name the model used, and what it routed to (null when it named no offered tool).
    modelName: text('model_name').notNull(),
    serverId: text('server_id'),
    serverName: text('server_name'),
    tool: text('tool'),
    input: jsonb('input').notNull(),
    argsHash: text('args_hash').notNull(),
    status: text('status', { enum: TOOL_CALL_STATUSES }).notNull().default('proposed'),
    // What the policy table said (auto, ask, reject) and why.
    verdict: jsonb('verdict').$type<StoredVerdict>(),
    // The tool as it was when called: trust and hints decide retries, schemas validate edits
    // and results, and the audit log shows what the person approved.
    trust: text('trust', { enum: TRUST_LEVELS }),
    // Whether the person trusted its server's content when the outcome was stored: a result whose
    // content was not trusted taints the conversation (db/queries/taint.ts reads it back).
    contentTrusted: boolean('content_trusted').notNull().default(false),
    annotations: jsonb('annotations').$type<StoredAnnotations>(),
    inputSchema: jsonb('input_schema').$type<Record<string, unknown>>(),
    outputSchema: jsonb('output_schema').$type<Record<string, unknown>>(),
    // What the person chose (null while nobody has, and for calls the verdict settled).
    decision: jsonb('decision').$type<StoredDecision>(),
    // The tool_result block sent back to the model.
    result: jsonb('result').$type<StoredToolResult>(),
    isError: boolean('is_error'),
    // The whole result text when it exceeded the per-result budget (paged by a host tool).
    fullText: text('full_text'),
    // Size of the whole result in characters, and whether the model got only part of it.
    resultChars: integer('result_chars'),
    resultTruncated: boolean('result_truncated'),
    attempts: integer('attempts').notNull().default(0),
    // Elicitation (input_required): what the server asked and the state to resume with.
    inputRequests: jsonb('input_requests').$type<StoredInputRequests>(),
    // The person's answers to them, sent back with the exact request state.
    inputResponses: jsonb('input_responses').$type<StoredInputResponses>(),
    // While the call waits in awaiting_sign_in: which server needs the person to sign in, and why.
    signIn: jsonb('sign_in').$type<StoredSignIn>(),
    requestState: text('request_state'),
    // A tool search (host tool) only: the enabled tools it found, offered for the rest of the run.
    foundTools: jsonb('found_tools').$type<StoredFoundTools>(),
    // The `ui://` view (MCP Apps) the tool declared when the model called it: the card shows that
    // view and no other (lib/chat/tool-view.ts), so a view named later cannot be slipped in.
    viewUri: text('view_uri'),
    // MCP Tasks: whether the tool may run as a task (its `execution.taskSupport` when called), and
    // the task the server answered with, followed to its end by whichever instance drives the run.
    taskSupport: text('task_support', { enum: TASK_SUPPORT }),
    task: jsonb('task').$type<StoredTask>(),
    // Set when the call was asked by that call's interactive view (a view's `tools/call`), not by the
    // model: it goes through the same consent, approval and audit, but belongs to no model step
    // (`step` is VIEW_CALL_STEP) and its result goes back to the view, never into the history.
    // The last `ui/update-model-context` of this call's view: what the view says the model should
    // know of its state, kept with the call and shown on its card (lib/chat/view-context.ts).
    viewContext: jsonb('view_context').$type<StoredViewContext>(),
    askedByCallId: uuid('asked_by_call_id').references((): AnyPgColumn => toolCalls.id, { onDelete: 'cascade' }),
    version: integer('version').notNull().default(0),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('tool_calls_run_use_idx').on(t.runId, t.toolUseId),
    index('tool_calls_run_step_idx').on(t.runId, t.step, t.position),
    index('tool_calls_user_idx').on(t.userId, t.createdAt),
    // The conversation page and every step (taint, stored results) filter on it.
    index('tool_calls_conversation_idx').on(t.conversationId, t.createdAt),
    // A finished sign-in finds the calls that wait for it (lib/agent/sign-in.ts).
    // A view's calls, listed under its card (lib/chat/view-calls.ts).
    index('tool_calls_asked_by_idx')
      .on(t.askedByCallId, t.createdAt)
      .where(sql`asked_by_call_id is not null`),
    index('tool_calls_awaiting_sign_in_idx')
      .on(t.userId, t.serverId)
      .where(sql`status = 'awaiting_sign_in'`),
  ],
);

// Tool lists as servers last gave them, kept for as long as the server allows (`ttlMs`; a
// default for legacy servers). Per caller unless the server marks the list public.
export const toolCatalogs = pgTable(
  'tool_catalogs',
  {
    serverId: text('server_id').notNull(),
    // A user id for private lists, '*' for public ones.
    scope: text('scope').notNull(),
    serverUrl: text('server_url').notNull(),
    catalog: jsonb('catalog').notNull().$type<Record<string, unknown>>(),
    fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.scope] })],
);
