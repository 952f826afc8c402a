import type { DbHandle } from '@/db/connection';
import { createEventBus, type EventBus } from '@/lib/agent/bus';
import { createRedisEventBus } from '@/lib/agent/redis-bus';
import { readConfig, type Env } from '@/lib/config';

/** The process's event bus and how to let go of it (a script ends it before it exits). */
export interface ChosenBus {
  bus: EventBus;
  kind: 'postgres' | 'redis';
  close(): Promise<void>;
}

/**
 * The event bus from the environment: Redis pub/sub when `REDIS_URL` is set (`redis://` or
 * `rediss://`; for several instances, so Postgres sends no notifications and each instance hears
 * only the conversations it streams), else the database's own LISTEN/NOTIFY (in-process with the
 * embedded PGlite). Every instance of one deployment must use the same bus: an instance on the
 * other one hears nothing live and catches up from the log only at its streams' pings.
 */
export function eventBusFrom(handle: DbHandle, env?: Env): ChosenBus {
  const { REDIS_URL: url, SWITCHBOARD_INSTANCE_NAME: name } = readConfig(env);
  if (!url) return { bus: createEventBus(handle), kind: 'postgres', close: async () => {} };
  const bus = createRedisEventBus(handle, url, { name: `switchboard${name ? `-${name}` : ''}-${process.pid}` });
  return { bus, kind: 'redis', close: () => bus.close() };
}
