import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createEventBus, type EventBus } from '@/lib/agent/bus';
import { createRedisEventBus, type RedisBusOptions } from '@/lib/agent/redis-bus';

import type { TestDbKind } from './db';

export type TestBusKind = 'postgres' | 'redis';

/** Redis for the bus suites: REDIS_URL, else the local Redis when it answered (test/global-setup.ts); '' for none. */
export const TEST_REDIS_URL = inject('redisUrl');

/**
 * The buses every bus suite runs on: the database's own (in-process with PGlite, always; LISTEN/
 * NOTIFY on Postgres when DATABASE_URL is set) and Redis pub/sub when Redis is reachable, over
 * Postgres when DATABASE_URL is set (as deployed), else over PGlite.
 */
export const TEST_BUSES: { name: string; bus: TestBusKind; db: TestDbKind; available: boolean }[] = [
  { name: 'in-process (PGlite)', bus: 'postgres', db: 'pglite', available: true },
  { name: 'Postgres LISTEN/NOTIFY', bus: 'postgres', db: 'postgres', available: Boolean(process.env.DATABASE_URL) },
  { name: 'Redis pub/sub', bus: 'redis', db: process.env.DATABASE_URL ? 'postgres' : 'pglite', available: Boolean(TEST_REDIS_URL) },
];

/**
 * Opens buses of one kind and closes them all at the end. A Redis bus gets connections of its own,
 * named after the test (`CLIENT LIST`), optionally through `url` (a cutting proxy).
 */
export function busFactory(kind: TestBusKind) {
  const opened: { close(): Promise<void> }[] = [];
  return {
    open(handle: DbHandle, opts: RedisBusOptions & { url?: string } = {}): EventBus & { name: string } {
      if (kind === 'postgres') return Object.assign(createEventBus(handle), { name: '' });
      const name = opts.name ?? `sb-test-${randomBytes(4).toString('hex')}`;
      const bus = createRedisEventBus(handle, opts.url ?? TEST_REDIS_URL, { ...opts, name });
      opened.push(bus);
      return Object.assign(bus, { name });
    },
    async closeAll() {
      await Promise.allSettled(opened.splice(0).map((b) => b.close()));
    },
  };
}
