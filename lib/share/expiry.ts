import type { ShareExpiry } from '@/db/vocabulary';
import { readConfig, type Env } from '@/lib/config';

const DAYS: Record<ShareExpiry, number | null> = { never: null, '1d': 1, '7d': 7, '30d': 30 };

/**
 * When a link made now with this choice stops opening (null: never). Test only:
 * `SWITCHBOARD_TEST_SHARE_DAY_MS` makes a "day" that many milliseconds, so the e2e can see a link
 * expire while it runs (the server under test is a production build with no clock to move);
 * lib/config ignores it outside a test deployment, and a day is then 24 hours.
 */
export function shareExpiresAt(choice: ShareExpiry, now: Date, env?: Env): Date | null {
  const days = DAYS[choice];
  if (days === null) return null;
  return new Date(now.getTime() + days * readConfig(env).SWITCHBOARD_TEST_SHARE_DAY_MS);
}

export function isExpired(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() <= now.getTime();
}
