import path from 'node:path';

import { openPglite, openPostgres, type DbHandle } from '@/db/connection';
import { holdDataDir } from '@/db/data-dir-holders';
import { ensurePrivateDir, restrictTree } from '@/db/private-files';
import { readConfig, type Env } from '@/lib/config';
import { dataDir } from '@/lib/data-dir';
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
    const url = readConfig().DATABASE_URL;
    if (url) {
      const handle = await openPostgres(url, { max: poolSizeFrom(), onStatement: countStatement });
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

/**
 * Connections of this process's node-postgres pool: `DATABASE_POOL_SIZE`, default 10, at most
 * Postgres' default `max_connections` (100). Each instance also holds one for its LISTENs and one
 * for live notifications (docs/SCALING.md), so instances × (pool + 2) must stay under the
 * server's `max_connections`.
 */
export function poolSizeFrom(env?: Env): number {
  return readConfig(env).DATABASE_POOL_SIZE;
}

/** What the holder file says holds the folder: `next-server (v16…)` (Next names its process), `set-plan.ts`… */
function processName(): string {
  const title = process.title;
  return title && path.basename(title) !== 'node' ? title : path.basename(process.argv[1] ?? process.argv0);
}
