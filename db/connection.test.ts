import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';

import { openPglite, openPostgres, type DbHandle } from './connection';

/** The rows of a raw query, as PGlite returns them. */
async function rows<T>(h: DbHandle, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await h.db.execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * The embedded database's own settings: a smaller buffer pool than initdb's 128 MB, and a new data
 * folder reopened once after initdb (which gives back the heap initdb left behind) with what was
 * created kept.
 */
describe('openPglite', () => {
  let base: string;
  afterAll(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('creates a new data folder, reopens it, and runs with 16 MB of shared buffers; a later open finds the data', async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sb-pglite-'));
    const dataDir = path.join(base, 'pglite');
    const first = await openPglite({ dataDir });
    expect(await rows(first, sql`show shared_buffers`)).toEqual([{ shared_buffers: '16MB' }]);
    await first.db.execute(sql`create table kept (v text)`);
    await first.db.execute(sql`insert into kept values ('written after the reopen')`);
    await first.close();

    const again = await openPglite({ dataDir });
    expect(await rows(again, sql`select v from kept`)).toEqual([{ v: 'written after the reopen' }]);
    expect(await rows(again, sql`show shared_buffers`)).toEqual([{ shared_buffers: '16MB' }]);
    await again.close();
  }, 120_000);
});

describe.skipIf(!process.env.DATABASE_URL)('openPostgres', () => {
  it('sends a notification while every pooled connection is in a transaction waiting for it (no pool deadlock)', async () => {
    // A pool of one, held by a transaction that waits for a notification to be sent: what the
    // bus does when it stores an event after live deltas (lib/agent/bus.ts).
    const h = await openPostgres(process.env.DATABASE_URL!, { max: 1 });
    try {
      const heard: string[] = [];
      await h.listen('sb_connection_test', (p) => heard.push(p));
      await h.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await h.notify('sb_connection_test', 'sent from outside the pool');
      });
      for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual(['sent from outside the pool']);
    } finally {
      await h.close();
    }
  }, 30_000);
});
