import type { DbHandle } from './connection';

/** Connections of this process's database pool, for the metrics. */
export interface PoolUse {
  inUse: number;
  idle: number;
  /** Queries waiting for a connection (node-postgres queues them past `max`). */
  waiting: number;
}

type PgPoolCounts = { totalCount: number; idleCount: number; waitingCount: number };

function isPgPool(client: unknown): client is PgPoolCounts {
  return typeof client === 'object' && client !== null && typeof (client as PgPoolCounts).waitingCount === 'number';
}

/**
 * Read from the node-postgres pool drizzle holds (`$client`), so the handle needs nothing new.
 * PGlite is one connection inside this process, always open, whose queue is not visible:
 * 1 in use, nothing idle or waiting.
 */
export function poolUse(handle: Pick<DbHandle, 'kind' | 'db'>): PoolUse {
  const client = (handle.db as unknown as { $client?: unknown }).$client;
  if (handle.kind === 'pglite') return { inUse: 1, idle: 0, waiting: 0 };
  if (!isPgPool(client)) return { inUse: 0, idle: 0, waiting: 0 };
  return { inUse: client.totalCount - client.idleCount, idle: client.idleCount, waiting: client.waitingCount };
}
