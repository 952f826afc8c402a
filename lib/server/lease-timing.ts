import { DEFAULT_HEARTBEAT_MS, DEFAULT_LEASE_MS } from '@/lib/agent/deps';
import { positiveIntFromEnv } from '@/lib/env-int';

type Env = Record<string, string | undefined>;

/**
 * How long a run's lease lasts and how often its instance renews it, from the environment:
 * `RUN_LEASE_MS` (default 15 s: how long a run whose instance died waits before another instance
 * takes it over) and `RUN_HEARTBEAT_MS` (default 1 s: also how soon a Stop pressed on another
 * instance is seen). A renewal must come well inside the lease, or a live instance would lose
 * its runs to the others: the heartbeat is at most half the lease.
 */
export function leaseTimingFrom(env: Env = process.env): { leaseMs: number; heartbeatMs: number } {
  const leaseMs = positiveIntFromEnv(env, 'RUN_LEASE_MS', DEFAULT_LEASE_MS);
  const heartbeatMs = positiveIntFromEnv(env, 'RUN_HEARTBEAT_MS', DEFAULT_HEARTBEAT_MS);
  if (heartbeatMs * 2 > leaseMs) {
    throw new Error(
      `RUN_HEARTBEAT_MS (${heartbeatMs}) must be at most half of RUN_LEASE_MS (${leaseMs}): ` +
        'a lease renewed less often would lapse under a live instance.',
    );
  }
  return { leaseMs, heartbeatMs };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

/**
 * The lease owner id of this process: `<SWITCHBOARD_INSTANCE_NAME>-<role>-<pid>-<random>`, or
 * without the name when it is unset. The name only tells an operator (or a test) which instance
 * drives a run; the pid and the random part keep two processes sharing one name (the app and its
 * sweep) apart, since two owners with one id would both believe they hold the same lease.
 */
export function instanceIdFrom(role: string, pid: number, random: string, env: Env = process.env): string {
  const name = env.SWITCHBOARD_INSTANCE_NAME?.trim();
  if (name && !NAME.test(name)) {
    throw new Error(
      'SWITCHBOARD_INSTANCE_NAME must be 1–40 letters, digits, dots, dashes or underscores, starting with a letter or digit ' +
        `(got "${name}").`,
    );
  }
  return `${name ? `${name}-` : ''}${role}-${pid}-${random}`;
}
