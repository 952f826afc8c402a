/** Timing of the first-run e2e, shared by its Playwright config and its spec. */
export const FIRST_RUN = {
  /** SSE_PING_MS for the dev server: the page gives up on a stream silent for two of these. */
  pingMs: 1000,
  /** SWITCHBOARD_TEST_EVENTS_HOLD_MS: longer than the test waits for anything. */
  eventsHoldMs: 300_000,
  /** How long the test waits for the card: time for a cold compile of the route the resync reads. */
  cardWithinMs: 150_000,
};
