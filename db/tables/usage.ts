import { bigint, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

import { ownerRef } from './accounts';

/** Per-user counters: rate limits and model usage. */

// Fixed-window counters (sign-in, sign-up); in Postgres so every instance shares them.
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  count: integer('count').notNull(),
});

// Model tokens a user's turns used per UTC day (the plan's modelTokensPerDay). Kept apart from
// runs so that deleting a conversation does not give the day's tokens back.
export const modelUsage = pgTable(
  'model_usage',
  {
    userId: ownerRef(),
    day: text('day').notNull(), // YYYY-MM-DD, UTC
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);
