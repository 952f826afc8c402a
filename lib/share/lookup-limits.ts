import type { Db } from '@/db/connection';
import { hitRateLimit, rateLimitCount } from '@/db/queries/rate-limits';
import { readConfig, type Env } from '@/lib/config';
import { AppError } from '@/lib/http/errors';

export const SHARE_LOOKUP_WINDOW_MS = 60_000;

export interface ShareLookupLimits {
  /** Links opened per minute by one client: a signed-in person, or an address our proxies vouch for. */
  perClient: number;
  /** Links opened per minute by everyone the app cannot tell apart (signed out, no TRUSTED_PROXIES). */
  unidentified: number;
}

/** `SHARE_LOOKUPS_PER_MINUTE` and `SHARE_UNIDENTIFIED_LOOKUPS_PER_MINUTE`, from the configuration. */
export function shareLookupLimits(env?: Env): ShareLookupLimits {
  const config = readConfig(env);
  return { perClient: config.SHARE_LOOKUPS_PER_MINUTE, unidentified: config.SHARE_UNIDENTIFIED_LOOKUPS_PER_MINUTE };
}

type Visitor = { userId: string | null; address: string | null };

/** The visitor's bucket: a signed-in person, an address our proxies vouch for, or everyone else together. */
function bucketOf(visitor: Visitor, limits: ShareLookupLimits): [key: string, limit: number] {
  if (visitor.userId) return [`share:user:${visitor.userId}`, limits.perClient];
  if (visitor.address) return [`share:client:${visitor.address}`, limits.perClient];
  return ['share:unidentified', limits.unidentified];
}

function tooMany(limit: number): AppError {
  return new AppError('rate_limited', 'share', `Too many shared links opened in a minute (at most ${limit}). Wait a minute and try again.`);
}

/**
 * Refuses a visitor whose failed lookups this minute have reached the limit, before the token is
 * looked up; counts nothing. Only failures count (`countFailedShareLookup`): a token is 256
 * random bits and cannot be guessed, the limit slows a client trying tokens one after another,
 * and reading a real link must not use up the bucket that every visitor the app cannot tell
 * apart (no session, no TRUSTED_PROXIES address) shares. A malformed token never gets here.
 */
export async function admitShareLookup(db: Db, visitor: Visitor, env?: Env): Promise<void> {
  const [key, limit] = bucketOf(visitor, shareLookupLimits(env));
  if ((await rateLimitCount(db, key, SHARE_LOOKUP_WINDOW_MS)) >= limit) throw tooMany(limit);
}

/** Counts a well-formed token that opened nothing (unknown, revoked or expired) against its visitor. */
export async function countFailedShareLookup(db: Db, visitor: Visitor, env?: Env): Promise<void> {
  const [key, limit] = bucketOf(visitor, shareLookupLimits(env));
  if ((await hitRateLimit(db, key, SHARE_LOOKUP_WINDOW_MS)) > limit) throw tooMany(limit);
}
