import type { Db } from '@/db/connection';
import { lockUserLimit } from '@/db/queries/rate-limits';
import { countForAdmission } from '@/db/queries/runs';
import { limitExceeded, limitsFor, type LimitExceeded } from '@/lib/limits';

/**
 * Admission of a new turn against the user's quotas: each turn may make up to `maxSteps` model
 * calls on the operator's key. The counts live in Postgres, so every instance shares them, and
 * they are taken inside the transaction that inserts the run, under a per-user lock: two sends
 * at the same moment are counted one after the other, never both against the old count.
 */

const MESSAGE_WINDOW_MS = 60_000;
const RUN_WINDOW_MS = 60 * 60_000;

/** First statement of the start transaction: the user's sends take turns from here to commit. */
export async function lockRunAdmission(tx: Db, userId: string): Promise<void> {
  await lockUserLimit(tx, userId, 'runs');
}

/**
 * After the run row is inserted (so a second turn in the same conversation is still a 409):
 * throws `LimitExceeded`, which rolls the insert back. A refused send is not counted.
 */
export async function admitRun(tx: Db, userId: string): Promise<{ plan: string | null }> {
  const counts = await countForAdmission(tx, userId, {
    messages: { key: `messages:user:${userId}`, ms: MESSAGE_WINDOW_MS },
    runs: { key: `runs:user:${userId}`, ms: RUN_WINDOW_MS },
  });
  const plan = counts.plan;
  const limits = limitsFor(plan);
  // The new run is one of them.
  if (counts.activeRuns > limits.activeRunsPerUser) {
    throw limitExceeded(
      'activeRunsPerUser',
      limits.activeRunsPerUser,
      'Wait for a turn in another conversation to finish, or stop it; a turn waiting for your approval or answer counts too.',
      plan,
    );
  }
  const tokens = tokensReached(counts.modelTokensToday, plan);
  if (tokens) throw tokens;
  if (counts.messagesInWindow > limits.messagesPerMinute) {
    throw limitExceeded('messagesPerMinute', limits.messagesPerMinute, 'Wait a minute before sending another message.', plan);
  }
  if (counts.runsInWindow > limits.runsPerHour) {
    throw limitExceeded('runsPerHour', limits.runsPerHour, 'Wait up to an hour before starting another turn.', plan);
  }
  return { plan };
}

/** Whether `used` model tokens today reach the plan's daily count (a LimitExceeded saying so), else null. */
export function tokensReached(used: number, plan: string | null): LimitExceeded | null {
  const max = limitsFor(plan).modelTokensPerDay;
  if (used < max) return null;
  return limitExceeded(
    'modelTokensPerDay',
    max,
    `Your turns have used ${used.toLocaleString('en')} model tokens today; the count starts again at 00:00 UTC.`,
    plan,
  );
}
