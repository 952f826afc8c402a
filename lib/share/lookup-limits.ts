import type { Db } from '@/db/connection';
import { hitRateLimit } from '@/db/queries/rate-limits';
import { positiveIntFromEnv } from '@/lib/env-int';
import { AppError } from '@/lib/http/errors';

type Env = Record<string, string | undefined>;

export const SHARE_LOOKUP_WINDOW_MS = 60_000;

export interface ShareLookupLimits {
  /** Links opened per minute by one client: a signed-in person, or an address our proxies vouch for. */
  perClient: number;
  /** Links opened per minute by everyone the app cannot tell apart (signed out, no TRUSTED_PROXIES). */
  unidentified: number;
}

export const DEFAULT_SHARE_LOOKUP_LIMITS: ShareLookupLimits = { perClient: 60, unidentified: 600 };

/** The defaults, adjustable with `SHARE_LOOKUPS_PER_MINUTE` and `SHARE_UNIDENTIFIED_LOOKUPS_PER_MINUTE`. */
export function shareLookupLimits(env: Env = process.env): ShareLookupLimits {
  return {
    perClient: positiveIntFromEnv(env, 'SHARE_LOOKUPS_PER_MINUTE', DEFAULT_SHARE_LOOKUP_LIMITS.perClient),
    unidentified: positiveIntFromEnv(env, 'SHARE_UNIDENTIFIED_LOOKUPS_PER_MINUTE', DEFAULT_SHARE_LOOKUP_LIMITS.unidentified),
  };
}

/**
 * Counts one token lookup against its client before the token is looked up, so a client that
 * tries tokens one after another is slowed whether or not they exist. A token is 256 random bits
 * and cannot be guessed; the limit keeps a flood of lookups from costing the database. Visitors
 * the app cannot tell apart (no session, no trusted proxy address) share one, larger bucket.
 */
export async function admitShareLookup(db: Db, client: { userId: string | null; address: string | null }, env: Env = process.env) {
  const limits = shareLookupLimits(env);
  const [key, limit] = client.userId
    ? [`share:user:${client.userId}`, limits.perClient]
    : client.address
      ? [`share:client:${client.address}`, limits.perClient]
      : ['share:unidentified', limits.unidentified];
  const count = await hitRateLimit(db, key, SHARE_LOOKUP_WINDOW_MS);
  if (count > limit) {
    throw new AppError(
      'rate_limited',
      'share',
      `Too many shared links opened in a minute (at most ${limit}). Wait a minute and try again.`,
    );
  }
}
