import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { batchFor, createCallBudget } from './call-budget';

/**
 * `mcpCallsPerMinute` across instances: each instance takes a batch of the minute from the
 * shared count, so most calls write nothing, and all instances together never run more than the
 * limit.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`the per-client call budget on ${kind}`, () => {
    let h: DbHandle;
    let statements = 0;
    beforeAll(async () => {
      h = await openTestDb(kind, { onStatement: (sql) => /rate_limits/.test(sql) && statements++ });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('takes a tenth of the limit at a time (at most 10): ten calls in a row write twice, not ten times', async () => {
      expect([batchFor(6), batchFor(60), batchFor(1e9)]).toEqual([1, 6, 10]);
      const budget = createCallBudget(h.db);
      const client = randomUUID();
      statements = 0;
      for (let i = 0; i < 10; i++) expect(await budget.take(client, 50)).toBe(true);
      expect(statements).toBe(2);
    });

    it('lets parallel calls of one client share a batch: nearly the whole minute runs, never more than the limit', async () => {
      const budget = createCallBudget(h.db);
      const client = randomUUID();
      const t0 = new Date('2026-12-06T12:00:00Z');
      const results = await Promise.all(Array.from({ length: 80 }, () => budget.take(client, 60, t0)));
      const granted = results.filter(Boolean).length;
      expect(granted).toBeLessThanOrEqual(60);
      expect(granted).toBeGreaterThanOrEqual(60 - batchFor(60));
    });

    it('never lets two instances together run more than the limit in a minute, and starts again the next minute', async () => {
      const [a, b] = [createCallBudget(h.db), createCallBudget(h.db)];
      const client = randomUUID();
      const t0 = new Date('2026-12-06T12:00:00Z');
      let granted = 0;
      // Turns between the two instances, as a client behind a load balancer: each takes batches of 3.
      for (let i = 0; i < 60; i++) if (await (i % 2 ? a : b).take(client, 25, t0)) granted++;
      expect(granted).toBeLessThanOrEqual(25);
      // What one instance took and did not use is lost for the minute: at most a batch less one each.
      expect(granted).toBeGreaterThanOrEqual(25 - 2 * 2);
      expect(await a.take(client, 25, new Date(t0.getTime() + 30_000))).toBe(false);
      // Another client's minute is its own.
      expect(await a.take(randomUUID(), 25, t0)).toBe(true);
      const next = new Date(t0.getTime() + 60_001);
      expect(await a.take(client, 25, next)).toBe(true);
      expect(await b.take(client, 25, next)).toBe(true);
    });
  });
}
