import path from 'node:path';

import { openPglite, openPostgres, type DbHandle } from '@/db/connection';
import { holdDataDir } from '@/db/data-dir-holders';
import { ensurePrivateDir, restrictTree } from '@/db/private-files';
import { dataDir } from '@/lib/data-dir';
import { positiveIntFromEnv } from '@/lib/env-int';
import { countStatement } from '@/lib/ops/statement-count';
import { processSingleton } from '@/lib/process-singleton';

// Next.js may load this module once per route bundle, and one process must open its PGlite
// data folder once.
const state = processSingleton('db', () => ({ opening: undefined as Promise<DbHandle> | undefined }));

/**
 * The process-wide database, opened on first use (never at import time: `next build` imports
 * route modules) and migrated before anyone gets it. PGlite under `.data/` by default;
 * node-postgres when DATABASE_URL is set.
 */
export function getDbHandle(): Promise<DbHandle> {
  state.opening ??= (async () => {
    const url = process.env.DATABASE_URL;
    if (url) {
      const handle = await openPostgres(url, { max: poolSizeFrom(process.env), onStatement: countStatement });
      await handle.migrate();
      return handle;
    }
    const dir = path.join(dataDir(), 'pglite');
    await ensurePrivateDir(dataDir());
    // Says this process has the folder open, so `npm run backup` / `restore` refuse it meanwhile.
    const release = await holdDataDir(dataDir(), processName());
    const handle = await openPglite({ dataDir: dir, onStatement: countStatement }).catch((err) => {
      release();
      throw err;
    });
    await handle.migrate();
    await restrictTree(dir);
    return {
      ...handle,
      async close() {
        await handle.close();
        release();
      },
    };
  })().catch((err) => {
    state.opening = undefined;
    throw err;
  });
  return state.opening;
}

/** Postgres' default `max_connections`: a pool past it could never fill. */
const MAX_POOL_SIZE = 100;

/**
 * Connections of this process's node-postgres pool: `DATABASE_POOL_SIZE`, default 10. Each
 * instance also holds one for its LISTENs and one for live notifications (docs/SCALING.md), so
 * instances × (pool + 2) must stay under the server's `max_connections`.
 */
export function poolSizeFrom(env: Record<string, string | undefined>): number {
  const size = positiveIntFromEnv(env, 'DATABASE_POOL_SIZE', 10);
  if (size > MAX_POOL_SIZE) {
    throw new Error(
      `DATABASE_POOL_SIZE must be at most ${MAX_POOL_SIZE} (got ${size}): Postgres allows 100 connections by default, ` +
        'and every instance also holds two of its own. Put PgBouncer in front of more instances instead.',
    );
  }
  return size;
}

/** What the holder file says holds the folder: `next-server (v16…)` (Next names its process), `set-plan.ts`… */
function processName(): string {
  const title = process.title;
  return title && path.basename(title) !== 'node' ? title : path.basename(process.argv[1] ?? process.argv0);
}
