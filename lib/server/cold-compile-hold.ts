import { readConfig, type Env } from '@/lib/config';

/**
 * Test only (e2e/first-run): `SWITCHBOARD_TEST_EVENTS_HOLD_MS` holds every events request that
 * arrives within that many milliseconds of the first one until that time is up — what `next dev`
 * does to requests that arrive while it compiles the route on first use, which on a busy machine
 * takes long enough for a page to look stuck. It makes that path deterministic. Only the e2e sets
 * it, and lib/config ignores it outside a test deployment.
 */
let holdUntil: number | undefined;

export async function holdLikeAColdCompile(env?: Env): Promise<void> {
  const ms = readConfig(env).SWITCHBOARD_TEST_EVENTS_HOLD_MS;
  if (ms <= 0) return;
  holdUntil ??= Date.now() + ms;
  const wait = holdUntil - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
