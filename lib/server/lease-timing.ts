import { readConfig, type Env } from '@/lib/config';

/**
 * How long a run's lease lasts and how often its instance renews it, from the configuration:
 * `RUN_LEASE_MS` (default 15 s: how long a run whose instance died waits before another instance
 * takes it over) and `RUN_HEARTBEAT_MS` (default 1 s: also how soon a Stop pressed on another
 * instance is seen). A renewal must come well inside the lease, or a live instance would lose
 * its runs to the others: lib/config refuses a heartbeat over half the lease.
 */
export function leaseTimingFrom(env?: Env): { leaseMs: number; heartbeatMs: number } {
  const config = readConfig(env);
  return { leaseMs: config.RUN_LEASE_MS, heartbeatMs: config.RUN_HEARTBEAT_MS };
}

/**
 * The lease owner id of this process: `<SWITCHBOARD_INSTANCE_NAME>-<role>-<pid>-<random>`, or
 * without the name when it is unset. The name only tells an operator (or a test) which instance
 * drives a run; the pid and the random part keep two processes sharing one name (the app and its
 * sweep) apart, since two owners with one id would both believe they hold the same lease.
 */
export function instanceIdFrom(role: string, pid: number, random: string, env?: Env): string {
  const name = readConfig(env).SWITCHBOARD_INSTANCE_NAME;
  return `${name ? `${name}-` : ''}${role}-${pid}-${random}`;
}
