import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

import {
  EVERYTHING_HTTP_PORT,
  EVERYTHING_SSE_PORT,
  FIXTURE_PORT,
  OAUTH_FIXTURE_ORIGIN,
  OAUTH_FIXTURE_PORT,
  OIDC_IDP_ISSUER,
  OIDC_IDP_NAME,
  OIDC_IDP_PORT,
} from './e2e/fixtures/ports';
import { TEST_IDP_CLIENT } from './test/fixtures/oidc-idp-accounts';

// End-to-end tests in Chromium against `next start` (a production build made beforehand by
// `npm run build`; this config does not build). Each run gets a fresh data folder: the embedded
// PGlite database and the auto-created auth secret live there, so users, rate limits and
// sessions never leak from one run into the next.

const PORT = Number(process.env.E2E_PORT ?? 3107);
// localhost, not 127.0.0.1: `next start` reports req.url as localhost, and the API's Origin
// check compares the Origin header with the Host header the browser sends.
const BASE_URL = `http://localhost:${PORT}`;

// The config is evaluated by the runner and again by each worker: the runner creates the folder
// and hands it on through the environment, so workers do not create folders of their own.
const DATA_DIR_VAR = 'SWITCHBOARD_E2E_DATA_DIR';
if (!process.env[DATA_DIR_VAR]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-e2e-'));
  process.env[DATA_DIR_VAR] = dir;
  if (process.env.E2E_KEEP_DATA !== '1') {
    // After the web server has been stopped: the runner exits last.
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
}
const dataDir = process.env[DATA_DIR_VAR]!;

const everythingEntry = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

export default defineConfig({
  testDir: 'e2e',
  // Against `next dev` from a cold build folder: playwright.first-run.config.ts. The screenshots are
  // for people to look at, not a check: `npm run screenshots` takes them (SCREENSHOTS=1).
  testIgnore: ['first-run/**', ...(process.env.SCREENSHOTS === '1' ? [] : ['screenshots.spec.ts'])],
  fullyParallel: false,
  workers: 1,
  // One retry: a test that passes only on its retry is listed by name as flaky at the end of `npm test`
  // (scripts/test-all.mjs), so a loaded machine does not refuse a submission and the flake is still seen.
  retries: 1,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e-results.json' }]],
  outputDir: 'test-results/e2e-artifacts',
  use: {
    baseURL: BASE_URL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: {
          executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
          ],
        },
      },
    },
  ],
  webServer: [
    {
      command: `npx next start -H 127.0.0.1 -p ${PORT}`,
      url: `${BASE_URL}/sign-in`,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        SWITCHBOARD_DATA_DIR: dataDir,
        DEMO_MODEL_DELAY_MS: '40',
        NEXT_TELEMETRY_DISABLED: '1',
        NODE_ENV: 'production',
        // Cheap password hashes: the suite signs in dozens of times (lib/auth/password.ts says why).
        PASSWORD_HASH_COST: 'test',
        // Blank counts as unset in the app: the embedded database, the offline demo model, a secret
        // created in the data folder, the request's own origin, no OAuth buttons.
        DATABASE_URL: '',
        REDIS_URL: '',
        ANTHROPIC_API_KEY: '',
        ANTHROPIC_BASE_URL: '',
        ANTHROPIC_MODEL: '',
        AUTH_SECRET: '',
        SECRETS_KEY: '',
        SECRETS_KEY_PREVIOUS: '',
        AUDIT_KEY: '',
        AUDIT_KEY_PREVIOUS: '',
        AUTH_URL: '',
        APP_URL: '',
        TRUSTED_PROXIES: '',
        // Single sign-on through the test IdP below (e2e/sso.spec.ts); email + password stay on.
        AUTH_OIDC_ISSUER: OIDC_IDP_ISSUER,
        AUTH_OIDC_ID: TEST_IDP_CLIENT.clientId,
        AUTH_OIDC_SECRET: TEST_IDP_CLIENT.clientSecret,
        AUTH_OIDC_NAME: OIDC_IDP_NAME,
        AUTH_PASSWORD: '',
        AUTH_GITHUB_ID: '',
        AUTH_GITHUB_SECRET: '',
        AUTH_GOOGLE_ID: '',
        AUTH_GOOGLE_SECRET: '',
        // The per-user limits at their defaults (lib/limits.ts): no spec sends faster than a person.
        SWITCHBOARD_LIMITS: '',
        // The MCP servers below listen on 127.0.0.1 over plain HTTP; the URL guard refuses loopback
        // addresses unless this is set (tests only: it would expose local services).
        MCP_ALLOW_LOOPBACK: 'true',
        // A share link's "day" lasts 3 s (lib/share/expiry.ts), so e2e/share.spec.ts sees a '1d' link expire.
        SWITCHBOARD_TEST_SHARE_DAY_MS: '3000',
      },
    },
    // Remote MCP servers for e2e/servers.spec.ts, on loopback ports (e2e/fixtures/ports.ts).
    {
      command: 'npx tsx e2e/fixtures/mcp-fixture-server.ts',
      url: `http://127.0.0.1:${FIXTURE_PORT}/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: { E2E_MCP_FIXTURE_PORT: String(FIXTURE_PORT) },
    },
    // The OAuth-protected server and its authorization server, one loopback origin (e2e/oauth.spec.ts).
    {
      command: `npx tsx test/fixtures/oauth-fixture.ts --port ${OAUTH_FIXTURE_PORT}`,
      url: `${OAUTH_FIXTURE_ORIGIN}/.well-known/oauth-authorization-server`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    // The OpenID Connect provider the app's single sign-on points at (e2e/sso.spec.ts).
    {
      command: `npx tsx test/fixtures/oidc-idp.ts --port ${OIDC_IDP_PORT} --redirect-uri ${BASE_URL}/api/auth/callback/oidc`,
      url: `${OIDC_IDP_ISSUER}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    ...(['streamableHttp', 'sse'] as const).map((mode) => {
      const port = mode === 'sse' ? EVERYTHING_SSE_PORT : EVERYTHING_HTTP_PORT;
      return {
        // The published server reads only PORT and would listen on every interface: the preload pins it to 127.0.0.1.
        command: `node --import ./test/fixtures/loopback-listen.mjs ${everythingEntry} ${mode}`,
        port,
        reuseExistingServer: false,
        timeout: 60_000,
        stdout: 'ignore' as const,
        stderr: 'pipe' as const,
        env: { PORT: String(port) },
      };
    }),
  ],
});
