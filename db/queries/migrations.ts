import { sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { rowsOf } from './rate-limits';

/** Answers a trivial query: the database is reachable and serving. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}

/**
 * The `created_at` of every migration drizzle recorded as applied (it stores the journal entry's
 * `when` there, and applies what is newer than the last one). Empty before the first migration,
 * when its table does not exist yet.
 */
export async function appliedMigrationTimes(db: Db): Promise<number[]> {
  const present = rowsOf<{ present: boolean }>(
    await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`),
  );
  if (!present[0]?.present) return [];
  const rows = rowsOf<{ created_at: string | number }>(await db.execute(sql`select created_at from drizzle.__drizzle_migrations`));
  return rows.map((r) => Number(r.created_at));
}
