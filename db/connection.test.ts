import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';

import { openPglite, type DbHandle } from './connection';

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
