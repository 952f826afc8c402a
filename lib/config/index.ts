import { z } from 'zod';

import { processSingleton } from '@/lib/process-singleton';

import { SETTINGS } from './settings';
import { about, type About } from './variable';

/**
 * The app's configuration: every environment variable it reads, declared once in ./settings.ts,
 * parsed together and refused together — a start with two typos names both. Plain TypeScript
 * (no Next.js): the engine and the scripts read it too.
 *
 * `readConfig()` parses `process.env` once per process and keeps the result; the environment
 * of a running app does not change. `readConfig(env)` parses the variables given and only those,
 * never `process.env` behind the caller's back: tests and scripts pass their own.
 */

export type Env = Record<string, string | undefined>;
export type ConfigName = keyof typeof SETTINGS;
export const CONFIG_NAMES = Object.keys(SETTINGS) as ConfigName[];

/** Which variable may be wrong because of another: a heartbeat must come well inside the lease, sign-in needs a way in. */
const schema = z.object(SETTINGS).superRefine((c, ctx) => {
  if (c.RUN_HEARTBEAT_MS * 2 > c.RUN_LEASE_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['RUN_HEARTBEAT_MS'],
      message:
        `(${c.RUN_HEARTBEAT_MS}) must be at most half of RUN_LEASE_MS (${c.RUN_LEASE_MS}): ` +
        'a lease renewed less often would lapse under a live instance.',
    });
  }
  // Single sign-on: all three or none — a half-configured provider would silently offer nothing.
  const oidc = { AUTH_OIDC_ISSUER: c.AUTH_OIDC_ISSUER, AUTH_OIDC_ID: c.AUTH_OIDC_ID, AUTH_OIDC_SECRET: c.AUTH_OIDC_SECRET };
  const missing = Object.entries(oidc).filter(([, v]) => !v);
  if (missing.length > 0 && missing.length < 3) {
    const set = Object.keys(oidc).filter((k) => !missing.some(([m]) => m === k));
    for (const [name] of missing) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `must be set too: ${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} set.`,
      });
    }
  }
  // Nobody could sign in: password sign-in off with no provider to sign in through instead.
  const sso = missing.length === 0 || (c.AUTH_GITHUB_ID && c.AUTH_GITHUB_SECRET) || (c.AUTH_GOOGLE_ID && c.AUTH_GOOGLE_SECRET);
  if (c.AUTH_PASSWORD === 'off' && !sso) {
    ctx.addIssue({
      code: 'custom',
      path: ['AUTH_PASSWORD'],
      message:
        'is off, but no single sign-on provider is set, so nobody could sign in: ' +
        'set AUTH_OIDC_ISSUER, AUTH_OIDC_ID and AUTH_OIDC_SECRET (or AUTH_GITHUB_ID and AUTH_GITHUB_SECRET).',
    });
  }
});

export type Config = Readonly<z.output<typeof schema>>;

/** Every variable that is wrong, each on its own line, named, with what is allowed. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** What the docs say about a variable (its description, and whether it is test-only or build-time). */
export function aboutVariable(name: ConfigName): About {
  return about.get(SETTINGS[name])!;
}

const TEST_ONLY = CONFIG_NAMES.filter((name) => aboutVariable(name).testOnly);

/**
 * Test-only variables (SWITCHBOARD_TEST_*) bend the app for a test — a share link's "day" of
 * 3 s — and must never do so in production. They are honoured outside production builds, and
 * in a production build only when it is a test suite's: the e2e runs `next start`, and it alone
 * also sets PASSWORD_HASH_COST=test, which no real deployment can run with unnoticed (the app
 * warns at every start). Anywhere else they are ignored, with a warning.
 */
export function isTestDeployment(env: Env): boolean {
  return env.NODE_ENV !== 'production' || env.PASSWORD_HASH_COST?.trim() === 'test';
}

function parse(env: Env): Config {
  const honoursTestOnly = isTestDeployment(env);
  const raw: Env = {};
  for (const name of CONFIG_NAMES) raw[name] = env[name];
  if (!honoursTestOnly) {
    const ignored = TEST_ONLY.filter((name) => raw[name]?.trim());
    if (ignored.length && env === process.env) console.warn(`[config] ignored in production: ${ignored.join(', ')} (test only).`);
    for (const name of TEST_ONLY) raw[name] = undefined;
  }
  const result = schema.safeParse(raw);
  if (result.success) return Object.freeze(result.data);
  throw new ConfigError(result.error.issues.map((issue) => `${String(issue.path[0])}${joiner(issue.message)}${issue.message}`));
}

/** "RUN_LEASE_MS must be …", but `MODEL_LIMITS["m"].contextWindow …` and `SWITCHBOARD_LIMITS: …`. */
function joiner(message: string): string {
  return /^[[.:]/.test(message) ? '' : ' ';
}

// On globalThis: Next.js may load this module once per route bundle.
const cache = processSingleton('config', () => ({ current: undefined as Config | undefined }));

/** The configuration from `env`, or from `process.env` (parsed once per process) when none is given. */
export function readConfig(env?: Env): Config {
  if (env !== undefined && env !== process.env) return parse(env);
  return (cache.current ??= parse(process.env));
}

/**
 * Forgets the parsed `process.env`, so the next `readConfig()` reads it again. For tests that
 * change the environment (test/config-setup.ts does it after every `vi.stubEnv`); a running app
 * never needs it.
 */
export function rereadConfig(): void {
  cache.current = undefined;
}

/** What every variable is when unset: the one place the defaults are written is ./settings.ts. */
export const CONFIG_DEFAULTS: Config = parse({});
