import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

import { FIRST_RUN } from './e2e/first-run/timing';
import base from './playwright.config';

// The path a brand-new user takes, against `next dev` started from a build folder nobody has
// compiled yet (`.next-first-run`, so `.next` of the other e2e stays as it is): every route
// compiles on its first request, the events route while the page's EventSource waits for it.
// On 2 busy cores that compile takes from a few to tens of seconds; to make the test
// deterministic, SWITCHBOARD_TEST_EVENTS_HOLD_MS holds events requests for longer than the test
// waits (lib/server/cold-compile-hold.ts). SSE_PING_MS is short so that "silent for two ping
// intervals" is seconds, not half a minute.

const PORT = Number(process.env.E2E_DEV_PORT ?? 3108);
const BASE_URL = `http://localhost:${PORT}`;
const DIST_DIR = '.next-first-run';

const DATA_DIR_VAR = 'SWITCHBOARD_E2E_FIRST_RUN_DATA_DIR';
if (!process.env[DATA_DIR_VAR]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-first-run-'));
  process.env[DATA_DIR_VAR] = dir;
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
}

export default defineConfig({
  ...base,
  testDir: 'e2e/first-run',
  testIgnore: [],
  // Compiling on demand is the slow part; the test prints where its time went.
  timeout: 480_000,
  expect: { timeout: 120_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e-first-run-results.json' }]],
  outputDir: 'test-results/e2e-first-run-artifacts',
  use: { ...base.use, baseURL: BASE_URL, actionTimeout: 60_000, navigationTimeout: 180_000 },
  webServer: {
    // Cold on purpose: the folder is removed first.
    command: `node -e "require('fs').rmSync('${DIST_DIR}', { recursive: true, force: true })" && npx next dev -H 127.0.0.1 -p ${PORT}`,
    // The sign-up page asks for a CSRF token first: readiness compiles that route, nothing else.
    url: `${BASE_URL}/api/auth/csrf`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      ...(Array.isArray(base.webServer) ? {} : base.webServer?.env),
      NODE_ENV: 'development',
      NEXT_DIST_DIR: DIST_DIR,
      SWITCHBOARD_DATA_DIR: process.env[DATA_DIR_VAR]!,
      SSE_PING_MS: String(FIRST_RUN.pingMs),
      SWITCHBOARD_TEST_EVENTS_HOLD_MS: String(FIRST_RUN.eventsHoldMs),
      // The demo model's default pace, as `npm run dev` has it.
      DEMO_MODEL_DELAY_MS: '',
    },
  },
});
