import { timestamp } from 'drizzle-orm/pg-core';

/** Column helpers shared by the tables (the owner and conversation references live beside their tables). */

export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
