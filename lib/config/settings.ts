import path from 'node:path';
import { z } from 'zod';

import { PLANS } from '@/db/vocabulary';

import { about, jsonObject, list, oneOf, refuse, text, url, variable, verbatim, wholeNumber, type About } from './variable';

/**
 * Every environment variable the app reads, once: its kind, its default and its refusal (in
 * ./variable.ts), and what it is for. The README's configuration table lists exactly these
 * (test/config-docs.test.ts). Each setting is read where it is used, through `readConfig()`.
 */
function d<S extends z.ZodType>(schema: S, meta: About): S {
  about.add(schema, meta);
  return schema;
}

const ms = (what: string) => (got: string) => `must be a positive integer number of milliseconds (${what}), got "${got}".`;
const atLeast = (min: number) => (got: string) => `must be an integer of at least ${min}, got "${got}".`;

/** `{ "contextWindow": n, "maxOutputTokens": n }` for one model of MODEL_LIMITS. */
function modelLimitsEntry(model: string, value: unknown) {
  const v = (value ?? {}) as Record<string, unknown>;
  for (const field of ['contextWindow', 'maxOutputTokens'] as const) {
    const n = v[field];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
      return refuse(`["${model}"].${field} must be a whole number of tokens of at least 1 (got ${JSON.stringify(n)}).`);
  }
  return { contextWindow: v.contextWindow as number, maxOutputTokens: v.maxOutputTokens as number };
}

/**
 * An OpenID Connect issuer: https, or plain http to this machine only (a test IdP, an IdP beside
 * the app). Auth.js would speak plain http to any host, and with the authorization-code flow the
 * ID token's integrity rests on the connection to the issuer (OIDC Core 3.1.3.7), so that is
 * refused here.
 */
function oidcIssuer() {
  const base = url({ schemes: ['https:', 'http:'], example: 'https://login.example.com/realms/acme' });
  return base.transform((value, ctx) => {
    if (value === undefined) return value;
    const parsed = new URL(value);
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname) || parsed.hostname.startsWith('127.');
    if (parsed.protocol === 'http:' && !loopback) {
      ctx.addIssue({ code: 'custom', message: `must be an https URL; plain http only to this machine (got "${value}").` });
      return z.NEVER;
    }
    if (parsed.search || parsed.hash) {
      ctx.addIssue({ code: 'custom', message: `must be the issuer URL alone, without ?query or #fragment (got "${value}").` });
      return z.NEVER;
    }
    // Kept exactly as written: discovery compares it with the issuer the IdP names, character for character.
    return value;
  });
}

const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

export const SETTINGS = {
  // The model
  ANTHROPIC_API_KEY: d(text(), { description: 'Use the Anthropic API instead of the demo model.' }),
  ANTHROPIC_AUTH_TOKEN: d(text(), {
    description: 'A bearer token the Anthropic SDK sends instead of an API key (some gateways); redacted from errors like the key.',
  }),
  ANTHROPIC_BASE_URL: d(text(), { description: 'Any Anthropic-compatible endpoint; setting it alone also turns the demo model off.' }),
  ANTHROPIC_MODEL: d(text('claude-sonnet-4-5'), { description: 'The model id sent to the API.' }),
  DEMO_MODEL_DELAY_MS: d(
    wholeNumber({
      fallback: 25,
      min: 0,
      message: (got) => `must be a non-negative integer number of milliseconds (e.g. 0 or 25), got "${got}".`,
    }),
    { description: "Pause between the demo model's streamed words." },
  ),
  MODEL_LIMITS: d(jsonObject('{"my-model": {"contextWindow": 100000, "maxOutputTokens": 8192}}', modelLimitsEntry), {
    description: 'Context window and largest answer of models the models endpoint and the known table do not cover.',
  }),
  CONTEXT_WINDOW_MARGIN: d(
    variable((value) => {
      if (value === undefined) return 0.1;
      const raw = value.trim();
      const margin = Number(raw);
      return /^\d*\.?\d+$/.test(raw) && margin >= 0.01 && margin <= 0.5
        ? margin
        : refuse(`must be a fraction from 0.01 to 0.5 (such as 0.1), got "${raw}".`);
    }),
    { description: "Share of a model's window kept free before older turns are shortened." },
  ),
  TOOL_SEARCH_MAX_TOOLS: d(wholeNumber({ fallback: 40, min: 2, message: atLeast(2) }), {
    description: 'Past this many enabled tools the model searches the tools instead of getting them all.',
  }),
  TOOL_SEARCH_MAX_TOKENS: d(wholeNumber({ fallback: 10_000, min: 0, message: atLeast(0) }), {
    description: 'Past this many estimated tokens of tool definitions the model searches the tools instead.',
  }),
  TOOL_SEARCH_RECENT_TOOLS: d(wholeNumber({ fallback: 10, min: 0, message: atLeast(0) }), {
    description: "How many of the conversation's most recently used tools stay offered in search mode.",
  }),

  // Runs and event streams
  RUN_LEASE_MS: d(wholeNumber({ fallback: 15_000, min: 1 }), {
    description: "How long a run's lease lasts before another instance may take the run over.",
  }),
  RUN_HEARTBEAT_MS: d(wholeNumber({ fallback: 1_000, min: 1 }), {
    description: "How often an instance renews its runs' leases (at most half of RUN_LEASE_MS).",
  }),
  SSE_PING_MS: d(wholeNumber({ fallback: 15_000, min: 1, message: ms('between pings') }), {
    description: 'Keep-alive ping interval of event streams.',
  }),
  SSE_PAUSED_IDLE_MS: d(wholeNumber({ fallback: 5 * 60_000, min: 1, message: ms('before a stream on a paused run closes') }), {
    description: 'How long an event stream waits on a paused run before it closes as idle.',
  }),
  MCP_APPROVAL_WAIT_MS: d(wholeNumber({ fallback: 120_000, min: 1, message: ms("an MCP client's call waits for approval") }), {
    description: "How long an MCP client's call through /mcp waits for the person's approval before it ends unrun.",
  }),
  MCP_ASK_WAIT_MS: d(wholeNumber({ fallback: 50_000, min: 1, message: ms("a switchboard_ask call waits for the turn's answer") }), {
    description: "How long a switchboard_ask call through /mcp waits for the turn's answer before it says the turn goes on.",
  }),
  OAUTH_REFRESH_INTERVAL_MS: d(
    // 0 (off) or at least 1 s: a tick every few milliseconds would hammer the database and the providers.
    variable((value) => {
      const raw = value?.trim();
      if (raw === undefined) return 60_000;
      const n = Number(raw);
      if (/^\d+$/.test(raw) && Number.isSafeInteger(n) && (n === 0 || n >= 1000)) return n;
      return refuse(`must be 0 (off) or at least 1000 milliseconds between background refreshes (got "${raw}").`);
    }),
    { description: "How often each instance refreshes people's OAuth tokens that expire soon (0 turns it off)." },
  ),
  SWITCHBOARD_INSTANCE_NAME: d(
    variable((value) => {
      const name = value?.trim();
      if (name === undefined || INSTANCE_NAME.test(name)) return name;
      return refuse(`must be 1–40 letters, digits, dots, dashes or underscores, starting with a letter or digit (got "${name}").`);
    }),
    { description: "Put in front of this instance's lease owner id and Redis client name." },
  ),

  // Storage
  DATABASE_URL: d(verbatim(), { description: 'A Postgres server instead of the embedded PGlite.' }),
  DATABASE_POOL_SIZE: d(
    wholeNumber({
      fallback: 10,
      min: 1,
      max: 100,
      message: (got) =>
        /^\d+$/.test(got) && Number(got) > 100
          ? `must be at most 100 (got ${Number(got)}): Postgres allows 100 connections by default, ` +
            'and every instance also holds two of its own. Put PgBouncer in front of more instances instead.'
          : `must be a whole number of at least 1 (got "${got}").`,
    }),
    { description: "Connections of each instance's Postgres pool." },
  ),
  REDIS_URL: d(
    variable((value) => {
      const v = value?.trim();
      if (v === undefined || /^rediss?:\/\//.test(v)) return v;
      return refuse('must be a redis:// or rediss:// URL (redis://[user:password@]host[:port][/db]), or unset for the database bus.');
    }),
    { description: 'Events between instances over Redis pub/sub instead of Postgres LISTEN/NOTIFY.' },
  ),
  SWITCHBOARD_DATA_DIR: d(
    variable((value) => value ?? path.join(process.cwd(), '.data')),
    { description: 'Where PGlite and the generated keys live (default ./.data).' },
  ),

  // Keys and secrets (their format is checked where they are loaded: lib/secrets/deployment-key.ts)
  AUTH_SECRET: d(
    variable((value) =>
      value === undefined || value.length >= 32 ? value : refuse('must be at least 32 characters (try: openssl rand -base64 32).'),
    ),
    { description: 'Signs session cookies; generated under the data folder when unset without DATABASE_URL.' },
  ),
  SECRETS_KEY: d(verbatim(), { description: 'Encrypts stored credentials (32 bytes, base64).' }),
  SECRETS_KEY_PREVIOUS: d(list(), { description: 'Older secrets keys that still open stored values after a rotation.' }),
  AUDIT_KEY: d(verbatim(), { description: 'Signs the audit log (32 bytes, base64).' }),
  AUDIT_KEY_PREVIOUS: d(list(), { description: 'Older audit keys whose entries still verify after a rotation.' }),
  AUDIT_RETENTION_DAYS: d(
    wholeNumber({ fallback: 365, min: 1, message: (got) => `must be a whole number of days, at least 1 (got "${got}").` }),
    { description: 'How long audit entries are kept.' },
  ),

  // Requests, sign-in and accounts
  APP_URL: d(url({ example: 'https://chat.example.com' }), { description: 'The public URL of the app (wins over AUTH_URL).' }),
  AUTH_URL: d(url({ example: 'https://chat.example.com' }), { description: 'The public URL of the app, as Auth.js names it.' }),
  TRUSTED_PROXIES: d(
    wholeNumber({
      fallback: 0,
      min: 0,
      max: 10,
      message: (got) => `must be the number of proxies in front of the app, 0 to 10 (got "${got}").`,
    }),
    { description: 'How many proxies of yours append to X-Forwarded-For in front of the app.' },
  ),
  SIGN_IN_FAILURES_PER_MINUTE: d(wholeNumber({ fallback: 60, min: 1 }), {
    description: 'Failed sign-ins per minute across all clients, from browsers not known to the account.',
  }),
  SIGN_UPS_PER_MINUTE: d(wholeNumber({ fallback: 30, min: 1 }), { description: 'Sign-ups per minute across all clients.' }),
  PASSWORD_HASH_COST: d(oneOf(['standard', 'test'], 'standard'), {
    description: 'scrypt cost of new password hashes; `test` is for the test suites only.',
  }),
  AUTH_PASSWORD: d(oneOf(['on', 'off'], 'on'), {
    description: '`off` turns email + password sign-in, sign-up and password changes off: single sign-on only.',
  }),
  AUTH_OIDC_ISSUER: d(oidcIssuer(), {
    description: 'With AUTH_OIDC_ID and AUTH_OIDC_SECRET: the OpenID Connect issuer to offer single sign-on through.',
  }),
  AUTH_OIDC_ID: d(text(), { description: 'The client id registered at AUTH_OIDC_ISSUER.' }),
  AUTH_OIDC_SECRET: d(verbatim(), { description: 'The client secret registered at AUTH_OIDC_ISSUER.' }),
  AUTH_OIDC_NAME: d(text('SSO'), { description: 'The provider\'s name on the sign-in button, "Continue with <name>" (default SSO).' }),
  AUTH_OIDC_ORG: d(
    variable((value) =>
      value === undefined || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value.trim())
        ? value?.trim().toLowerCase()
        : refuse(`must be an organization's id (a UUID, as GET /api/orgs lists it), got "${value}".`),
    ),
    { description: "An organization's id (GET /api/orgs): people whose account the OIDC provider creates join it as members." },
  ),
  AUTH_GITHUB_ID: d(text(), { description: 'With AUTH_GITHUB_SECRET: offer "Continue with GitHub".' }),
  AUTH_GITHUB_SECRET: d(verbatim(), { description: 'With AUTH_GITHUB_ID: offer "Continue with GitHub".' }),
  AUTH_GOOGLE_ID: d(text(), { description: 'With AUTH_GOOGLE_SECRET: offer "Continue with Google".' }),
  AUTH_GOOGLE_SECRET: d(verbatim(), { description: 'With AUTH_GOOGLE_ID: offer "Continue with Google".' }),
  DEFAULT_PLAN: d(oneOf(PLANS, 'pro'), { description: 'Plan of new accounts.' }),

  // Limits
  SWITCHBOARD_LIMITS: d(
    jsonObject('{"messagesPerMinute": 100}', (name, value) =>
      typeof value === 'number' && Number.isFinite(value) && value >= 0
        ? value
        : refuse(`: ${name} must be a non-negative number (got ${JSON.stringify(value)}).`),
    ),
    { description: 'Per-user quotas over the plans\' values (lib/limits.ts), as JSON such as {"messagesPerMinute": 100}.' },
  ),
  SHARE_LOOKUPS_PER_MINUTE: d(wholeNumber({ fallback: 60, min: 1 }), {
    description: 'Failed shared-link lookups one client may make per minute.',
  }),
  SHARE_UNIDENTIFIED_LOOKUPS_PER_MINUTE: d(wholeNumber({ fallback: 600, min: 1 }), {
    description: 'Failed shared-link lookups per minute, together, of the visitors the app cannot tell apart.',
  }),

  // Operators' endpoints and tests
  SWEEP_TOKEN: d(verbatim(), { description: 'Enables POST /api/internal/sweep with this bearer token.' }),
  METRICS_TOKEN: d(verbatim(), { description: 'Enables GET /api/metrics with this bearer token.' }),
  MCP_ALLOW_LOOPBACK: d(
    variable((value) => value === 'true'),
    { description: '`true` lets servers on this machine be added and reached (tests only).' },
  ),
  NEXT_DIST_DIR: d(text('.next'), { description: 'Build folder.', buildTime: true }),
  SWITCHBOARD_TEST_BUILD: d(
    variable((value) => value === '1'),
    {
      description: '`1`: `next build` skips its own type check and build cache (npm test has run tsc; one build per clean clone).',
      buildTime: true,
      testOnly: true,
    },
  ),
  SWITCHBOARD_TEST_SHARE_DAY_MS: d(wholeNumber({ fallback: 24 * 60 * 60_000, min: 1 }), {
    description: 'How long a share link\'s "day" lasts, so the e2e can see a link expire.',
    testOnly: true,
  }),
  SWITCHBOARD_TEST_EVENTS_HOLD_MS: d(wholeNumber({ fallback: 0, min: 0 }), {
    description: 'Holds the events requests of the first that many ms, as `next dev` does while it compiles the route.',
    testOnly: true,
  }),
};
