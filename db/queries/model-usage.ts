import { and, eq, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { modelUsage } from '../schema';

/** The UTC day a count belongs to, as stored (`YYYY-MM-DD`). */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Adds the tokens the model reported for one step to the user's count for today (UTC). One
 * statement: every instance adds to the same row.
 */
export async function addModelTokens(db: Db, userId: string, tokens: number, now = new Date()): Promise<void> {
  if (!(tokens > 0)) return;
  await db
    .insert(modelUsage)
    .values({ userId, day: utcDay(now), tokens })
    .onConflictDoUpdate({ target: [modelUsage.userId, modelUsage.day], set: { tokens: sql`${modelUsage.tokens} + ${tokens}` } });
}

/** The model tokens the user's turns used today (UTC). */
export async function modelTokensToday(db: Db, userId: string, now = new Date()): Promise<number> {
  const rows = await db
    .select({ tokens: modelUsage.tokens })
    .from(modelUsage)
    .where(and(eq(modelUsage.userId, userId), eq(modelUsage.day, utcDay(now))))
    .limit(1);
  return Number(rows[0]?.tokens ?? 0);
}
