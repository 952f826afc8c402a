import { randomBytes } from 'node:crypto';

import { openPglite, openPostgres, type DbHandle } from '@/db/connection';
import { adminQuery, withDatabase } from '@/test/pg-admin';

/**
 * The databases the bench runs the engine on, each with a statement counter: PGlite in memory
 * always, and Postgres when BENCH_DATABASE_URL names a server — in a database of its own,
 * created and migrated for the run and dropped after it, so nothing is left in the one named.
 */

export interface StatementCounter {
  /** Statements seen since `start()` (BEGIN / COMMIT / ROLLBACK not counted, as in lib/agent/statement-count.test.ts). */
  start(): void;
  stop(): string[];
}

export interface BenchDb {
  kind: 'pglite' | 'postgres';
  handle: DbHandle;
  statements: StatementCounter;
  /** The server's version string. */
  version: string;
  close(): Promise<void>;
}

function counter(): StatementCounter & { observe(statement: string): void } {
  let seen: string[] | null = null;
  return {
    observe(statement) {
      if (seen && !/^\s*(begin|commit|rollback)\b/i.test(statement)) seen.push(statement);
    },
    start: () => void (seen = []),
    stop() {
      const out = seen ?? [];
      seen = null;
      return out;
    },
  };
}

async function serverVersion(handle: DbHandle): Promise<string> {
  const result = (await handle.db.execute('select version() as v')) as unknown as { rows?: { v: string }[] } | { v: string }[];
  const rows = Array.isArray(result) ? result : (result.rows ?? []);
  return rows[0]?.v.split(' on ')[0] ?? 'unknown';
}

export async function openBenchDbs(postgresUrl: string | undefined): Promise<BenchDb[]> {
  const out: BenchDb[] = [];
  const lite = counter();
  const pglite = await openPglite({ onStatement: lite.observe });
  await pglite.migrate();
  out.push({ kind: 'pglite', handle: pglite, statements: lite, version: `PGlite (${await serverVersion(pglite)})`, close: pglite.close });

  if (postgresUrl) {
    const name = `sb_bench_${randomBytes(5).toString('hex')}`;
    await adminQuery(postgresUrl, `create database "${name}"`);
    const pgCounter = counter();
    const pg = await openPostgres(withDatabase(postgresUrl, name), { onStatement: pgCounter.observe });
    await pg.migrate();
    out.push({
      kind: 'postgres',
      handle: pg,
      statements: pgCounter,
      version: await serverVersion(pg),
      async close() {
        await pg.close();
        await adminQuery(postgresUrl, `drop database if exists "${name}" with (force)`);
      },
    });
  }
  return out;
}
