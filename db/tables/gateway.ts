import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

import type { StoredAnnotations, StoredDecision } from '../stored-json';
import { CLIENT_APPROVAL_STATUSES, CLIENT_DECISION_CHANNELS, TRUST_LEVELS } from '../vocabulary';
import { ownerRef } from './accounts';
import { createdAt } from './columns';

/** What MCP clients reach through /mcp and wait for (lib/gateway). */

// A call of an MCP client that needs the person's approval (lib/gateway/approvals.ts): the client's
// HTTP request waits on this row until the person decides (the "Other clients" inbox, or the
// client's elicitation), or `expires_at` passes. Any instance may decide it: the first conditional
// update out of `pending_approval` wins. The row names the client as it was when it called, and
// the exact arguments the decision is bound to (`args_hash`). The outcome of the run itself is in
// the audit log (kind client_call).
export const clientApprovals = pgTable(
  'client_approvals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    // The client: its kind (a personal access token), its id and the name the person gave it.
    clientKind: text('client_kind').notNull(),
    clientId: text('client_id').notNull(),
    clientName: text('client_name').notNull(),
    // The tool as the client named it (`<namespace>__<tool>`), and what it routes to.
    name: text('name').notNull(),
    serverId: text('server_id').notNull(),
    serverName: text('server_name').notNull(),
    tool: text('tool').notNull(),
    trust: text('trust', { enum: TRUST_LEVELS }).notNull(),
    annotations: jsonb('annotations').notNull().$type<StoredAnnotations>(),
    input: jsonb('input').notNull(),
    argsHash: text('args_hash').notNull(),
    // Why the decision table asked (lib/consent/policy.ts), and its warnings for the person.
    reason: text('reason').notNull(),
    warnings: jsonb('warnings').notNull().$type<string[]>(),
    status: text('status', { enum: CLIENT_APPROVAL_STATUSES }).notNull().default('pending_approval'),
    decision: jsonb('decision').$type<StoredDecision>(),
    decidedVia: text('decided_via', { enum: CLIENT_DECISION_CHANNELS }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    // When the allowed call was started: it runs once, by whichever request claims it first (the held
    // request, or the client's retried call after an elicitation); its outcome is in the audit log.
    ranAt: timestamp('ran_at', { withTimezone: true }),
  },
  (t) => [
    // The inbox lists a person's waiting calls.
    index('client_approvals_pending_idx')
      .on(t.userId, t.createdAt)
      .where(sql`status = 'pending_approval'`),
  ],
);

// One `switchboard_ask` call of an MCP client (lib/gateway/ask-tool.ts): the turn it started, and
// whether its answer has gone back. A call that ended before the answer did (the wait ran out, the
// client gave up) is answered by a retry with the same prompt from this row — never by a second
// turn. `prompt_hash` is the SHA-256 of the prompt; `follow_up` says whether the call named the
// conversation (a follow-up) or started it.
export const clientAsks = pgTable(
  'client_asks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    clientId: uuid('client_id').notNull(),
    // No cascade: a conversation the person deleted while the client waited keeps its row, so a
    // retry is told so instead of running the prompt again in a new conversation.
    conversationId: uuid('conversation_id').notNull(),
    runId: uuid('run_id').notNull(),
    promptHash: text('prompt_hash').notNull(),
    followUp: boolean('follow_up').notNull(),
    createdAt: createdAt(),
    answeredAt: timestamp('answered_at', { withTimezone: true }),
  },
  (t) => [
    index('client_asks_unanswered_idx')
      .on(t.clientId, t.promptHash, t.createdAt)
      .where(sql`answered_at is null`),
  ],
);
