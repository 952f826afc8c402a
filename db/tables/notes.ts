import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

import { ownerRef } from './accounts';
import { createdAt } from './columns';

/** The built-in notes server's notes. */

// Per-user notes behind the built-in `notes` MCP server.
export const notes = pgTable(
  'notes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    title: text('title').notNull(),
    body: text('body').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('notes_user_idx').on(t.userId, t.updatedAt)],
);
