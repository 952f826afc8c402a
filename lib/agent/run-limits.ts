import type { Db } from '@/db/connection';
import { hitRateLimit, lockUserLimit } from '@/db/queries/rate-limits';
import { countActiveRunsForUser } from '@/db/queries/runs';
import { getUserPlan } from '@/db/queries/users';
import { limitExceeded, limitsFor } from '@/lib/limits';

/**
 * Admission of a new turn against the user's quotas: each turn may make up to `maxSteps` model
 * calls on the operator's key. Both counts live in Postgres, so every instance shares them, and
 * both are taken inside the transaction that inserts the run, under a per-user lock: two sends
 * at the same moment are counted one after the other, never both against the old count.
 */

const MESSAGE_WINDOW_MS = 60_000;

/** First statement of the start transaction: the user's sends take turns from here to commit. */
export async function lockRunAdmission(tx: Db, userId: string): Promise<void> {
  await lockUserLimit(tx, userId, 'runs');
}

/**
 * After the run row is inserted (so a second turn in the same conversation is still a 409):
 * throws `LimitExceeded`, which rolls the insert back. A refused send is not counted.
 */
export async function admitRun(tx: Db, userId: string): Promise<void> {
  const limits = limitsFor(await getUserPlan(tx, userId));
  // The new run is one of them.
  if ((await countActiveRunsForUser(tx, userId)) > limits.activeRunsPerUser) {
    throw limitExceeded(
      'activeRunsPerUser',
      limits.activeRunsPerUser,
      'Wait for a turn in another conversation to finish, or stop it; a turn waiting for your approval or answer counts too.',
    );
  }
  if ((await hitRateLimit(tx, `messages:user:${userId}`, MESSAGE_WINDOW_MS)) > limits.messagesPerMinute) {
    throw limitExceeded('messagesPerMinute', limits.messagesPerMinute, 'Wait a minute before sending another message.');
  }
}
