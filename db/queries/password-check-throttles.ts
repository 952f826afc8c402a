import { eq, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { passwordCheckThrottles } from '../schema';
import { rowsOf } from './rate-limits';

/** How the delay between password checks on one key grows. */
export interface ThrottlePolicy {
  /** Checks allowed back to back before any delay. */
  freeFailures: number;
  /** The first delay; each further failure doubles it. */
  baseDelayMs: number;
  /** The delay never grows past this. */
  maxDelayMs: number;
  /** A key with no allowed check for this long starts over. */
  forgetAfterMs: number;
}

export type ThrottleClaim = { allowed: true; failures: number } | { allowed: false; retryAt: Date };

// 2^40 × any sane base is far past any cap; the clamp keeps power() from overflowing.
const MAX_EXPONENT = 40;

/**
 * Claims the right to check one password against `key`, in one statement so that concurrent
 * attempts on several instances are serialised by the row lock: an attempt is allowed only when
 * `next_check_at` has passed, and the allowed attempt is counted as a failure (pushing
 * `next_check_at` out) before its password is checked. A right password then clears the key.
 * Refused attempts change nothing, so they cost the attacker time and the server nothing.
 */
export async function claimPasswordCheck(db: Db, key: string, policy: ThrottlePolicy, now = new Date()): Promise<ThrottleClaim> {
  const at = now.toISOString();
  const forgetBefore = new Date(now.getTime() - policy.forgetAfterMs).toISOString();
  const failures = sql`(case when t.last_attempt_at <= ${forgetBefore}::timestamptz then 1 else t.failures + 1 end)`;
  const result = await db.execute(sql`
    insert into password_check_throttles as t (key, failures, next_check_at, last_attempt_at)
    values (${key}, 1, ${at}::timestamptz + ${delaySql(sql`1`, policy)}, ${at}::timestamptz)
    on conflict (key) do update set
      failures = ${failures},
      next_check_at = ${at}::timestamptz + ${delaySql(failures, policy)},
      last_attempt_at = ${at}::timestamptz
    where t.next_check_at <= ${at}::timestamptz or t.last_attempt_at <= ${forgetBefore}::timestamptz
    returning failures`);
  const claimed = rowsOf<{ failures: number }>(result)[0];
  if (claimed) return { allowed: true, failures: Number(claimed.failures) };
  const rows = await db
    .select({ nextCheckAt: passwordCheckThrottles.nextCheckAt })
    .from(passwordCheckThrottles)
    .where(eq(passwordCheckThrottles.key, key));
  return { allowed: false, retryAt: rows[0]?.nextCheckAt ?? now };
}

/** delay(f) = 0 for the free failures, then base × 2^(f − free), capped. */
function delaySql(failures: ReturnType<typeof sql>, policy: ThrottlePolicy) {
  const free = policy.freeFailures;
  const exponent = sql`least(${failures} - ${free}::int, ${MAX_EXPONENT}::int)`;
  const ms = sql`(case when ${failures} < ${free}::int then 0
    else least(${policy.baseDelayMs}::float8 * power(2::float8, ${exponent}), ${policy.maxDelayMs}::float8) end)`;
  return sql`(${ms} * interval '1 millisecond')`;
}

/** A right password: the key starts over. */
export async function clearPasswordCheckThrottle(db: Db, key: string): Promise<void> {
  await db.delete(passwordCheckThrottles).where(eq(passwordCheckThrottles.key, key));
}
