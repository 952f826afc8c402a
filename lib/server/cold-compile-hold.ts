/**
 * Test only (e2e/first-run): `SWITCHBOARD_TEST_EVENTS_HOLD_MS` holds every events request that
 * arrives within that many milliseconds of the first one until that time is up — what `next dev`
 * does to requests that arrive while it compiles the route on first use, which on a busy machine
 * takes long enough for a page to look stuck. It makes that path deterministic. Only the e2e sets
 * it, and it is ignored in production builds.
 */
let holdUntil: number | undefined;

export async function holdLikeAColdCompile(env: Record<string, string | undefined> = process.env): Promise<void> {
  const ms = Number(env.SWITCHBOARD_TEST_EVENTS_HOLD_MS);
  if (env.NODE_ENV === 'production' || !Number.isFinite(ms) || ms <= 0) return;
  holdUntil ??= Date.now() + ms;
  const wait = holdUntil - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
