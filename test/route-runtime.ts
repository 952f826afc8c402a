import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';

import type { DbHandle, StatementObserver } from '@/db/connection';
import { processSingleton } from '@/lib/process-singleton';
import { openTestDb } from '@/test/db';

/**
 * The app's runtime as route tests call its handlers: a data folder of its own, fresh keys, the
 * app's origin taken from the request (no APP_URL / AUTH_URL), and — instead of the database the
 * runtime would open — a fresh, migrated PGlite test database, returned for the test to seed.
 * `env` adds the test's own settings; `onStatement` sees every statement the app sends. In afterAll:
 * `vi.unstubAllEnvs()`, then close the handle.
 */
export async function openRouteRuntime(
  tag: string,
  env: Record<string, string> = {},
  opts: { onStatement?: StatementObserver } = {},
): Promise<DbHandle> {
  vi.stubEnv('SWITCHBOARD_DATA_DIR', path.join(await mkdtemp(path.join(os.tmpdir(), `sb-${tag}-`)), 'data'));
  vi.stubEnv('SECRETS_KEY', randomBytes(32).toString('base64'));
  vi.stubEnv('AUTH_SECRET', randomBytes(32).toString('base64url'));
  vi.stubEnv('APP_URL', '');
  vi.stubEnv('AUTH_URL', '');
  // The event bus of the embedded default; the Redis bus has its own suites (lib/agent/bus.test.ts).
  vi.stubEnv('REDIS_URL', '');
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const h = await openTestDb('pglite', opts);
  processSingleton('db', () => ({ opening: Promise.resolve(h) }));
  return h;
}
