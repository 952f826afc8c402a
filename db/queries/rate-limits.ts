import { sql, type SQL } from 'drizzle-orm';

import type { Db } from '../connection';

/**
 * Counts one hit against `key` in a fixed window and returns the count so far in that window.
 * One statement, so concurrent hits on several instances are all counted.
 */
export async function hitRateLimit(db: Db, key: string, windowMs: number, now = new Date()): Promise<number> {
  const result = await db.execute(rateLimitHit(key, windowMs, now));
  return Number(rowsOf<{ count: number }>(result)[0]?.count ?? 0);
}

/**
 * Counts `hits` at once against `key` (a batch an instance takes ahead, lib/gateway/call-budget.ts)
 * and returns the count so far with the start of the window it is in. One statement.
 */
export async function hitRateLimitBy(
  db: Db,
  key: string,
  windowMs: number,
  hits: number,
  now = new Date(),
): Promise<{ count: number; windowStart: Date }> {
  const result = await db.execute(rateLimitHit(key, windowMs, now, hits));
  const row = rowsOf<{ count: number; window_start: string | Date }>(result)[0];
  return { count: Number(row?.count ?? 0), windowStart: row ? new Date(row.window_start) : now };
}

/** The statement of one hit, or of `hits` (`returning count, window_start`), also usable as a CTE beside other counts. */
export function rateLimitHit(key: string, windowMs: number, now: Date, hits = 1): SQL {
  const windowStart = new Date(now.getTime() - windowMs);
  const n = sql`${hits}::int`;
  return sql`
    insert into rate_limits (key, window_start, count) values (${key}, ${now.toISOString()}, ${n})
    on conflict (key) do update set
      count = case when rate_limits.window_start <= ${windowStart.toISOString()} then ${n} else rate_limits.count + ${n} end,
      window_start = case when rate_limits.window_start <= ${windowStart.toISOString()}
        then ${now.toISOString()}::timestamptz else rate_limits.window_start end
    returning count, window_start`;
}

/** The hits counted against `key` in its current window, without adding one (0 once the window has passed). */
export async function rateLimitCount(db: Db, key: string, windowMs: number, now = new Date()): Promise<number> {
  const windowStart = new Date(now.getTime() - windowMs);
  const result = await db.execute(
    sql`select count from rate_limits where key = ${key} and window_start > ${windowStart.toISOString()}::timestamptz`,
  );
  return Number(rowsOf<{ count: number }>(result)[0]?.count ?? 0);
}

/** Takes one hit back (a sign-in that succeeded does not count against the limit). */
export async function undoRateLimitHit(db: Db, key: string): Promise<void> {
  await db.execute(sql`update rate_limits set count = greatest(count - 1, 0) where key = ${key}`);
}

/**
 * Serializes checks of one user's limit until the transaction ends: count, then insert, with no
 * second request of the same user in between (on any instance). Must run inside a transaction.
 */
export async function lockUserLimit(tx: Db, userId: string, limit: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`limit:${limit}:${userId}`}))`);
}

/** node-postgres returns `{ rows }`, PGlite returns `{ rows }` too, but typed differently. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
