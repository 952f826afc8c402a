import { boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

import { SHARE_AUDIENCES } from '../vocabulary';
import { ownerRef } from './accounts';
import { createdAt } from './columns';
import { conversationRef } from './conversations';

/** Share links. */

// A read-only link to a snapshot of a conversation (lib/share). The token is shown once and kept
// only as its SHA-256; the snapshot is the path from the first message to the one numbered
// `snapshot_seq` — the branch active when it was taken (messages are only ever added, so that path
// never changes) — with the title they had then. Revoking deletes the row;
// deleting the conversation or the account deletes it too.
export const shareLinks = pgTable(
  'share_links',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    conversationId: conversationRef(),
    tokenHash: text('token_hash').notNull().unique(),
    includeToolDetails: boolean('include_tool_details').notNull().default(false),
    // Whether the shared page shows the files attached to messages (served through the token).
    includeFiles: boolean('include_files').notNull().default(false),
    audience: text('audience', { enum: SHARE_AUDIENCES }).notNull().default('anyone'),
    // null: never expires.
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    snapshotSeq: integer('snapshot_seq').notNull(),
    snapshotTitle: text('snapshot_title').notNull(),
    snapshotAt: timestamp('snapshot_at', { withTimezone: true }).notNull(),
    // Set when the owner moved the snapshot to the newest finished turn after creating the link.
    snapshotMovedAt: timestamp('snapshot_moved_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('share_links_user_idx').on(t.userId, t.createdAt), index('share_links_conversation_idx').on(t.conversationId)],
);
