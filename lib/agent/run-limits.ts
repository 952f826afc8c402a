import type { Db } from '@/db/connection';
import { modelTokensToday } from '@/db/queries/model-usage';
import { hitRateLimit, lockUserLimit } from '@/db/queries/rate-limits';
import { countActiveRunsForUser } from '@/db/queries/runs';
import { getUserPlan } from '@/db/queries/users';
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
export async function admitRun(tx: Db, userId: string): Promise<void> {
  const plan = await getUserPlan(tx, userId);
  const limits = limitsFor(plan);
  // The new run is one of them.
  if ((await countActiveRunsForUser(tx, userId)) > limits.activeRunsPerUser) {
    throw limitExceeded(
      'activeRunsPerUser',
      limits.activeRunsPerUser,
      'Wait for a turn in another conversation to finish, or stop it; a turn waiting for your approval or answer counts too.',
      plan,
    );
  }
  const tokens = await modelTokensReached(tx, userId, { plan });
  if (tokens) throw tokens;
  if ((await hitRateLimit(tx, `messages:user:${userId}`, MESSAGE_WINDOW_MS)) > limits.messagesPerMinute) {
    throw limitExceeded('messagesPerMinute', limits.messagesPerMinute, 'Wait a minute before sending another message.', plan);
  }
  if ((await hitRateLimit(tx, `runs:user:${userId}`, RUN_WINDOW_MS)) > limits.runsPerHour) {
    throw limitExceeded('runsPerHour', limits.runsPerHour, 'Wait up to an hour before starting another turn.', plan);
  }
}

/**
 * The error when the user's turns have used the plan's model tokens for today (UTC), else null.
 * Checked before a turn starts and before each of its model steps: the tokens are known only
 * after a step, so the step that crosses the line finishes and the next one does not start.
 */
export async function modelTokensReached(
  db: Db,
  userId: string,
  opts: { plan?: string | null; now?: Date } = {},
): Promise<LimitExceeded | null> {
  const plan = opts.plan !== undefined ? opts.plan : await getUserPlan(db, userId);
  const now = opts.now ?? new Date();
  const max = limitsFor(plan).modelTokensPerDay;
  const used = await modelTokensToday(db, userId, now);
  if (used < max) return null;
  return limitExceeded(
    'modelTokensPerDay',
    max,
    `Your turns have used ${used.toLocaleString('en')} model tokens today; the count starts again at 00:00 UTC.`,
    plan,
  );
}
