import { randomBytes } from 'node:crypto';

import { openPglite, openPostgres, type DbHandle } from '@/db/connection';
import { adminQuery, withDatabase } from '@/test/pg-admin';

/**
 * The databases the bench runs the engine on, each with a statement counter and a clock of the
 * time spent in SQL: PGlite in memory always, and Postgres when BENCH_DATABASE_URL names a server
 * — in a database of its own, created and migrated for the run and dropped after it, so nothing
 * is left in the one named.
 */

export interface StatementCounter {
  start(): void;
  /**
   * The statements seen since `start()` (BEGIN / COMMIT / ROLLBACK not counted, as in
   * lib/agent/statement-count.test.ts); the timeline with those too (node-postgres sends them as
   * statements of their own, so a COMMIT's WAL flush shows as such; PGlite's are not seen and
   * fall to the statement before); and the wall time during which at least one was in the
   * database's hands (PGlite: inside its WASM; Postgres: a query sent and not yet answered).
   */
  stop(): { statements: TimedStatement[]; timeline: TimedStatement[]; sqlMs: number };
}

/** Busy time: overlapping or nested calls count once. */
class BusyClock {
  private active = 0;
  private since = 0;
  total = 0;
  enter() {
    if (this.active++ === 0) this.since = performance.now();
  }
  leave() {
    if (--this.active === 0) this.total += performance.now() - this.since;
  }
}

const pgliteClock = new BusyClock();
const postgresClock = new BusyClock();

type AnyMethod = (...args: unknown[]) => unknown;

/** Wraps a prototype's method so the clock runs while its promise (or callback) is pending. */
function timeMethod(proto: Record<string, unknown>, name: string, clock: BusyClock) {
  const original = proto[name] as AnyMethod;
  proto[name] = function (this: unknown, ...args: unknown[]) {
    clock.enter();
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (...cbArgs: unknown[]) => (clock.leave(), (last as AnyMethod)(...cbArgs));
      return original.apply(this, args);
    }
    try {
      const out = original.apply(this, args);
      if (out instanceof Promise) return out.finally(() => clock.leave());
      clock.leave();
      return out;
    } catch (error) {
      clock.leave();
      throw error;
    }
  };
}

let clocksInstalled = false;

/**
 * The bench's only intrusion: the database clients' own methods are wrapped (PGlite's protocol
 * calls, node-postgres' `Client.query`) to time SQL apart from everything else in a turn.
 */
async function installClocks() {
  if (clocksInstalled) return;
  clocksInstalled = true;
  const { PGlite } = await import('@electric-sql/pglite');
  for (const name of ['execProtocol', 'execProtocolStream', 'execProtocolRaw', 'execProtocolRawStream']) {
    timeMethod(PGlite.prototype as unknown as Record<string, unknown>, name, pgliteClock);
  }
  const pg = (await import('pg')).default;
  timeMethod(pg.Client.prototype as unknown as Record<string, unknown>, 'query', postgresClock);
}

export interface BenchDb {
  kind: 'pglite' | 'postgres';
  handle: DbHandle;
  statements: StatementCounter;
  /** The server's version string. */
  version: string;
  close(): Promise<void>;
}

/** One statement of a turn and the SQL time until the next one began (statements of a turn run one after another). */
export interface TimedStatement {
  sql: string;
  ms: number;
}

const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback)\b/i;

function counter(clock: BusyClock): StatementCounter & { observe(statement: string): void } {
  let seen: { sql: string; at: number }[] | null = null;
  let clockAtStart = 0;
  return {
    observe(statement) {
      seen?.push({ sql: statement, at: clock.total });
    },
    start() {
      seen = [];
      clockAtStart = clock.total;
    },
    stop() {
      const entries = seen ?? [];
      seen = null;
      const timeline = entries.map((e, i) => ({ sql: e.sql, ms: (entries[i + 1]?.at ?? clock.total) - e.at }));
      return { statements: timeline.filter((t) => !TRANSACTION_CONTROL.test(t.sql)), timeline, sqlMs: clock.total - clockAtStart };
    },
  };
}

async function serverVersion(handle: DbHandle): Promise<string> {
  const result = (await handle.db.execute('select version() as v')) as unknown as { rows?: { v: string }[] } | { v: string }[];
  const rows = Array.isArray(result) ? result : (result.rows ?? []);
  return rows[0]?.v.split(' on ')[0] ?? 'unknown';
}

export async function openBenchDbs(postgresUrl: string | undefined): Promise<BenchDb[]> {
  await installClocks();
  const out: BenchDb[] = [];
  const lite = counter(pgliteClock);
  const pglite = await openPglite({ onStatement: lite.observe });
  await pglite.migrate();
  out.push({ kind: 'pglite', handle: pglite, statements: lite, version: `PGlite (${await serverVersion(pglite)})`, close: pglite.close });

  if (postgresUrl) {
    const name = `sb_bench_${randomBytes(5).toString('hex')}`;
    await adminQuery(postgresUrl, `create database "${name}"`);
    const pgCounter = counter(postgresClock);
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
