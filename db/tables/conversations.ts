import { sql } from 'drizzle-orm';
import {
  bigint,
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
  StoredConversationClient,
  StoredForkOrigin,
  StoredMessageContent,
  StoredMessageOrigin,
  StoredNameMap,
  StoredRunError,
  StoredTaint,
  StoredThinking,
  StoredUsage,
} from '../stored-json';
import { ACTIVE_RUN_STATUSES, RUN_STATUSES } from '../vocabulary';
import { ownerRef } from './accounts';
import { createdAt } from './columns';

/** Conversations, their messages (a tree), runs and the event log. */

/** A row that belongs to a conversation and goes with it. */
export const conversationRef = () =>
  uuid('conversation_id')
    .notNull()
    .references(() => conversations.id, { onDelete: 'cascade' });

export const conversations = pgTable(
  'conversations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    title: text('title').notNull().default('New conversation'),
    model: text('model').notNull(),
    // Last allocated event seq; incremented atomically to number the event log.
    eventSeq: bigint('event_seq', { mode: 'number' }).notNull().default(0),
    // Last allocated message seq.
    messageSeq: integer('message_seq').notNull().default(0),
    // Set once, when text from an untrusted server first entered the model's context (what,
    // from which server, when); from then on auto-approval covers only trusted read-only tools.
    tainted: jsonb('tainted').$type<StoredTaint>(),
    // A conversation continued from someone's share link: which snapshot it was copied from.
    forkedFrom: jsonb('forked_from').$type<StoredForkOrigin>(),
    // A conversation an MCP client started through `switchboard_ask` (lib/gateway/ask-tool.ts): which
    // client, named as it was; null for the person's own. Shown in the sidebar and the header.
    startedBy: jsonb('started_by').$type<StoredConversationClient>(),
    // Extended thinking for this conversation's turns (null: off).
    thinking: jsonb('thinking').$type<StoredThinking>(),
    // The person's instructions for this conversation (system text after their own); not copied
    // into a share or a fork. Null: none.
    instructions: text('instructions'),
    // The last message of the branch on screen (messages form a tree, see `messages.parent_id`):
    // the history sent to the model is the path from the root to it, and the next message
    // follows it. Null: no message yet. Not a foreign key (the two tables would reference each
    // other); it moves only while no turn is active (lib/chat/branches.ts).
    activeLeafId: uuid('active_leaf_id'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('conversations_user_updated_idx').on(t.userId, t.updatedAt)],
);

// Anthropic-native content blocks, stored verbatim so the next request can be sent as is.
export const messages = pgTable(
  'messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    conversationId: conversationRef(),
    seq: integer('seq').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: jsonb('content').notNull().$type<StoredMessageContent>(),
    runId: uuid('run_id'),
    // Why an assistant message ended (end_turn, max_tokens, cancelled, …); null for user messages.
    stopReason: text('stop_reason'),
    // Where a user message's inserted content came from (an MCP server's prompt or resources); null: typed.
    origin: jsonb('origin').$type<StoredMessageOrigin>(),
    // The message this one follows: messages form a tree (an edit or a regenerated answer starts a
    // sibling branch). Null for a conversation's first message, and for an edit of it. A child's
    // seq is always greater than its parent's, so seq order along a path is the path's order.
    parentId: uuid('parent_id').references((): AnyPgColumn => messages.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('messages_conversation_seq_idx').on(t.conversationId, t.seq),
    // A message's siblings (the branch switcher) and children (the newest leaf beneath one).
    index('messages_conversation_parent_idx').on(t.conversationId, t.parentId),
  ],
);

// A summary of a conversation's oldest messages (seq ≤ through_seq), written when the history
// nears the model's window and sent in their place. The messages themselves stay: the person can
// still read them, and `switchboard__read_result` can still page through their tool results.
export const historySummaries = pgTable(
  'history_summaries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    conversationId: conversationRef(),
    throughSeq: integer('through_seq').notNull(),
    text: text('text').notNull(),
    // The run whose step needed the room.
    runId: uuid('run_id'),
    createdAt: createdAt(),
  },
  (t) => [index('history_summaries_conversation_idx').on(t.conversationId, t.throughSeq)],
);

// A run is one agent turn: a durable state machine that any instance can advance.
// `version` is bumped by every state change (compare-and-swap); `lease_owner` and
// `lease_expires_at` say which instance may write while it is running.
export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    conversationId: conversationRef(),
    userId: ownerRef(),
    // The signed-in session that started the run: its grants are the ones that apply.
    sessionId: text('session_id'),
    // The MCP client (its access_tokens row) whose `switchboard_ask` started the run, when no
    // session did: its profile is then the run's grants (lib/consent/stored-grants.ts).
    clientId: uuid('client_id'),
    status: text('status', { enum: RUN_STATUSES }).notNull().default('running'),
    stopReason: text('stop_reason'),
    // JSON columns hold the shapes of ./stored-json.ts and are read through them (db/queries).
    error: jsonb('error').$type<StoredRunError>(),
    model: text('model').notNull(),
    step: integer('step').notNull().default(0),
    maxSteps: integer('max_steps').notNull().default(20),
    version: integer('version').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    usage: jsonb('usage').$type<StoredUsage>(),
    // Model-facing tool name → server id + tool name, as offered in the current step.
    nameMap: jsonb('name_map').$type<StoredNameMap>(),
    // The conversation's thinking setting when the turn started: every step of it, resumed anywhere, asks the same.
    thinking: jsonb('thinking').$type<StoredThinking>(),
    // Seq of this run's run.started event: a client joining mid-run replays from here.
    startSeq: bigint('start_seq', { mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    index('runs_conversation_idx').on(t.conversationId, t.createdAt),
    // At most one active run per conversation: a second start loses the insert and gets 409.
    uniqueIndex('runs_one_active_idx')
      .on(t.conversationId)
      .where(sql.raw(`status in (${ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(', ')})`)),
    index('runs_lease_idx').on(t.status, t.leaseExpiresAt),
  ],
);

// The per-conversation event log: what SSE replays by seq.
export const events = pgTable(
  'events',
  {
    conversationId: conversationRef(),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    runId: uuid('run_id'),
    type: text('type').notNull(),
    data: jsonb('data').notNull().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.seq] })],
);
