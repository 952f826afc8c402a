import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { openTestDb, TEST_DATABASES } from '@/test/db';

import { poolUse } from './pool-use';

describe('poolUse', () => {
  it('PGlite: one connection, always in use, nothing idle or waiting', async () => {
    const h = await openTestDb('pglite');
    try {
      expect(poolUse(h)).toEqual({ inUse: 1, idle: 0, waiting: 0 });
    } finally {
      await h.close();
    }
  });

  const postgres = TEST_DATABASES.find((d) => d.kind === 'postgres')!;
  it.skipIf(!postgres.available)('node-postgres: in use, idle and waiting as the pool counts them', async () => {
    // test/db.ts opens its pool with max 4: hold all four, and a fifth query waits.
    const h = await openTestDb('postgres');
    try {
      await Promise.all([1, 2].map(() => h.db.execute(sql`select 1`)));
      expect(poolUse(h)).toMatchObject({ inUse: 0, waiting: 0 });
      expect(poolUse(h).idle).toBeGreaterThan(0);
      // Drizzle sends a query when it is awaited: Promise.resolve starts each now.
      const held = [1, 2, 3, 4, 5].map(() => Promise.resolve(h.db.execute(sql`select pg_sleep(0.5)`)));
      await new Promise((r) => setTimeout(r, 200));
      expect(poolUse(h)).toEqual({ inUse: 4, idle: 0, waiting: 1 });
      await Promise.all(held);
    } finally {
      await h.close();
    }
  });
});
