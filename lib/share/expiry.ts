import type { ShareExpiry } from '@/db/vocabulary';

type Env = Record<string, string | undefined>;

const DAYS: Record<ShareExpiry, number | null> = { never: null, '1d': 1, '7d': 7, '30d': 30 };

/**
 * When a link made now with this choice stops opening (null: never). Test only:
 * `SWITCHBOARD_TEST_SHARE_DAY_MS` makes a "day" that many milliseconds, so the e2e can see a link
 * expire while it runs (the server under test is a production build with no clock to move).
 */
export function shareExpiresAt(choice: ShareExpiry, now: Date, env: Env = process.env): Date | null {
  const days = DAYS[choice];
  if (days === null) return null;
  return new Date(now.getTime() + days * dayMs(env));
}

function dayMs(env: Env): number {
  const raw = env.SWITCHBOARD_TEST_SHARE_DAY_MS;
  const ms = Number(raw);
  if (raw && Number.isInteger(ms) && ms > 0) return ms;
  return 24 * 60 * 60_000;
}

export function isExpired(expiresAt: Date | null, now: Date): boolean {
  return expiresAt !== null && expiresAt.getTime() <= now.getTime();
}
