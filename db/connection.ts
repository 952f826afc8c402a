import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PgTransaction, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';

import { trackCommits } from './after-commit';
import * as schema from './schema';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** Whether `db` is a transaction already (work done on it commits with it; no savepoint is needed). */
export function isTransaction(db: Db): boolean {
  return (db as unknown) instanceof PgTransaction;
}

/**
 * A database plus the two things drizzle does not cover: LISTEN/NOTIFY (events reach other
 * instances through it) and closing.
 */
export interface DbHandle {
  kind: 'pglite' | 'postgres';
  db: Db;
  /**
   * Payloads NOTIFYed on `channel`. `onResume` is called when the connection that listens was lost
   * and listens again: what was sent meanwhile never arrives, so the caller reads it elsewhere.
   */
  listen(channel: string, onPayload: (payload: string) => void, onResume?: () => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** Applies pending migrations; safe when several processes start at once. */
  migrate(migrationsFolder?: string): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the data dir as a tarball (tests clone a migrated template from it). */
  dumpDataDir?(): Promise<Blob>;
}

function loggerOf(onStatement: StatementObserver | undefined) {
  return onStatement ? { logQuery: (query: string) => onStatement(query) } : undefined;
}

// Any fixed number: serialises migrations when several instances start at once.
const MIGRATION_LOCK = 727_001;

export const MIGRATIONS_FOLDER = path.join(process.cwd(), 'db', 'migrations');

/** Called with every statement the app sends (drizzle's queries and NOTIFY): what a test counts per turn. */
export type StatementObserver = (statement: string) => void;

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/**
 * Postgres settings of the embedded database. initdb picks shared_buffers = 128 MB, as for a
 * server; in PGlite those buffers live in this process's WASM heap once touched. One person's
 * database needs far less: 16 MB holds ~115 MB less resident (docs/PERFORMANCE.md, Memory).
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB'];

export async function openPglite(opts: { dataDir?: string; loadDataDir?: Blob; onStatement?: StatementObserver } = {}): Promise<DbHandle> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  if (opts.dataDir) await mkdir(path.dirname(opts.dataDir), { recursive: true });
  // `load`: only the first start loads a dump; the reopen finds it in the folder already.
  const start = async (load: Blob | undefined) => {
    const pglite = new PGlite({
      dataDir: opts.dataDir,
      loadDataDir: load,
      startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
    });
    await pglite.waitReady;
    return pglite;
  };
  const created = opts.dataDir !== undefined && !(await exists(path.join(opts.dataDir, 'PG_VERSION')));
  let client = await start(opts.loadDataDir);
  if (created) {
    // initdb just ran in this process and left its heap behind (~400 MB more resident than a
    // start on an existing folder, until the process ends): a close and a reopen (~0.5 s, once
    // per data folder) hands it back.
    await client.close();
    client = await start(undefined);
  }
  const db = drizzle({ client, schema, logger: loggerOf(opts.onStatement) }) as unknown as Db;
  trackCommits(db);
  return {
    kind: 'pglite',
    db,
    async listen(channel, onPayload) {
      const off = await client.listen(channel, onPayload);
      return async () => off();
    },
    async notify(channel, payload) {
      opts.onStatement?.('select pg_notify($1, $2)');
      await client.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async migrate(migrationsFolder = MIGRATIONS_FOLDER) {
      const { migrate } = await import('drizzle-orm/pglite/migrator');
      await migrate(db as never, { migrationsFolder });
    },
    close: () => client.close(),
    dumpDataDir: () => client.dumpDataDir('none'),
  };
}

export async function openPostgres(
  connectionString: string,
  opts: { max?: number; onStatement?: StatementObserver } = {},
): Promise<DbHandle> {
  const pg = (await import('pg')).default;
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10 });
  // An idle client that errors (server restart) must not crash the process.
  pool.on('error', (err) => console.error('[db] idle client error:', err.message));
  const db = drizzle({ client: pool, schema, logger: loggerOf(opts.onStatement) }) as unknown as Db;
  trackCommits(db);
  // Notifications sent on their own (live deltas) go through one connection of their own. The
  // bus holds every stored event until the live deltas before it are sent, and it does so inside
  // the transaction that stores the event: were these notifications to wait for a pool
  // connection while every pooled connection is such a transaction, nothing could move again
  // (seen with 50 turns at once on the pool of 10). One connection also keeps them in order.
  const notifier = new pg.Pool({ connectionString, max: 1 });
  notifier.on('error', (err) => console.error('[db] notify client error:', err.message));

  // One dedicated connection carries every LISTEN of this process. If it drops, it is opened
  // again (with backoff) and every channel is listened to again; the SSE streams meanwhile
  // catch up from the event log.
  let listener: import('pg').Client | undefined;
  let connecting: Promise<import('pg').Client> | undefined;
  let closed = false;
  let retryMs = 500;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const resumers = new Set<() => void>();
  let listenedBefore = false;
  const quote = (channel: string) => `"${channel.replace(/"/g, '')}"`;

  function drop(c: import('pg').Client) {
    if (listener !== c) return;
    listener = undefined;
    c.end().catch(() => {});
    if (closed || handlers.size === 0) return;
    setTimeout(() => {
      listenerClient().catch((err) => console.error('[db] listener reconnect failed:', err.message));
    }, retryMs).unref();
    retryMs = Math.min(retryMs * 2, 30_000);
  }

  function listenerClient(): Promise<import('pg').Client> {
    if (listener) return Promise.resolve(listener);
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString });
      c.on('error', (err) => {
        console.error('[db] listener error:', err.message);
        drop(c);
      });
      c.on('end', () => drop(c));
      c.on('notification', (n) => {
        for (const h of handlers.get(n.channel) ?? []) h(n.payload ?? '');
      });
      await c.connect();
      for (const channel of handlers.keys()) await c.query(`LISTEN ${quote(channel)}`);
      listener = c;
      retryMs = 500;
      // Listening again after a loss: notifications sent in between are gone.
      if (listenedBefore) for (const resume of resumers) resume();
      listenedBefore = true;
      return c;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  return {
    kind: 'postgres',
    db,
    async listen(channel, onPayload, onResume) {
      if (onResume) resumers.add(onResume);
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        const c = await listenerClient();
        await c.query(`LISTEN ${quote(channel)}`);
      }
      set.add(onPayload);
      return async () => {
        set.delete(onPayload);
        if (onResume) resumers.delete(onResume);
      };
    },
    async notify(channel, payload) {
      opts.onStatement?.('select pg_notify($1, $2)');
      await notifier.query('select pg_notify($1, $2)', [channel, payload]);
    },
    async migrate(migrationsFolder = MIGRATIONS_FOLDER) {
      const { migrate } = await import('drizzle-orm/node-postgres/migrator');
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
        await migrate(drizzle({ client, schema }), { migrationsFolder });
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
        client.release();
      }
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
      await notifier.end();
      await pool.end();
    },
  };
}
