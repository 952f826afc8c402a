import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { StoredAuditContent } from '../stored-json';
import { AUDIT_KINDS, AUDIT_OUTCOMES } from '../vocabulary';
import { ownerRef, users } from './accounts';

/** The audit log and its chain heads. */

// The audit log (lib/audit): append-only, one hash chain per user. Each entry's HMAC covers the
// previous entry's HMAC and its own content, under a key that is not in the database, so an edit
// or a deletion in the middle breaks the chain where it happened. No reference to conversations
// or tool calls: an entry outlives them and holds its own copies (title, server name, tool).
// The entries go with their user (account deletion). The filter columns repeat what the content
// says; the verifier checks that they still do.
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    // 1, 2, 3… per user, no gaps: a missing number is a deleted entry.
    seq: bigint('seq', { mode: 'number' }).notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    kind: text('kind', { enum: AUDIT_KINDS }).notNull(),
    conversationId: uuid('conversation_id'),
    toolCallId: uuid('tool_call_id'),
    serverId: text('server_id'),
    tool: text('tool'),
    outcome: text('outcome', { enum: AUDIT_OUTCOMES }),
    content: jsonb('content').notNull().$type<StoredAuditContent>(),
    // Which AUDIT_KEY signed it (a short, non-reversible id), so a rotated key is told apart from an edit.
    keyId: text('key_id').notNull(),
    prevHmac: text('prev_hmac').notNull(),
    hmac: text('hmac').notNull(),
  },
  (t) => [
    uniqueIndex('audit_entries_user_seq_idx').on(t.userId, t.seq),
    // One entry per tool call: writing it twice (a retried transaction) is refused, not repeated.
    uniqueIndex('audit_entries_tool_call_idx')
      .on(t.toolCallId)
      .where(sql`tool_call_id is not null`),
    index('audit_entries_at_idx').on(t.at),
  ],
);

// Where each user's chain ends. Locked FOR UPDATE by every append, so parallel calls and several
// instances append one after another to one chain. After retention pruning, the first kept entry
// chains from `anchor_hmac` (the last pruned entry's HMAC), and `anchor_mac` signs that anchor
// with the audit key, so pruning cannot be faked to hide the oldest entries.
export const auditChainHeads = pgTable('audit_chain_heads', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  lastSeq: bigint('last_seq', { mode: 'number' }).notNull().default(0),
  lastHmac: text('last_hmac'),
  lastAt: timestamp('last_at', { withTimezone: true }),
  prunedThroughSeq: bigint('pruned_through_seq', { mode: 'number' }).notNull().default(0),
  anchorHmac: text('anchor_hmac'),
  anchorMac: text('anchor_mac'),
});
