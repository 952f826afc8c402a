import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { openPostgres, type DbHandle } from '@/db/connection';
import { adminQuery, withDatabase } from '@/test/pg-admin';

/**
 * What every instance of one fault-suite run shares: the secrets (instances sharing a database
 * must share them), the database — a fresh one on the Postgres at DATABASE_URL, or a fresh
 * embedded data folder — and the settings that make faults quick to see: a 2 s lease renewed
 * every 250 ms, a ping every 500 ms (a stream's pings are where an instance takes a lapsed run
 * over), loopback MCP servers allowed, limits raised so no test trips one by accident.
 */

export const FAULT_LEASE_MS = 2000;

const SHARED = {
  AUTH_SECRET: 'fault-suite-auth-secret-not-for-production-0123456789',
  SECRETS_KEY: Buffer.from('fault-suite-secrets-key-32-bytes').toString('base64'),
  AUDIT_KEY: Buffer.from('fault-suite-audit-key--32-bytes!').toString('base64'),
  PASSWORD_HASH_COST: 'test',
  MCP_ALLOW_LOOPBACK: 'true',
  RUN_LEASE_MS: String(FAULT_LEASE_MS),
  RUN_HEARTBEAT_MS: '250',
  SSE_PING_MS: '500',
  ANTHROPIC_MODEL: 'claude-fault-suite',
  SWITCHBOARD_LIMITS: JSON.stringify({
    messagesPerMinute: 1000,
    runsPerHour: 1000,
    serversPerUser: 50,
    activeRunsPerUser: 20,
    enabledToolsPerConversation: 100,
  }),
};

export interface FaultDatabase {
  /** Environment that points an instance at it. */
  env: Record<string, string>;
  kind: 'postgres' | 'pglite';
  /** A pool of the test's own on the same database (Postgres only: PGlite is one process per folder). */
  handle?: DbHandle;
  close(): Promise<void>;
}

/** A database nobody else uses: `sb_faults_<random>` on DATABASE_URL's server, dropped by close(). */
export async function freshPostgres(base: string): Promise<FaultDatabase> {
  const name = `sb_faults_${randomBytes(5).toString('hex')}`;
  await adminQuery(base, `create database "${name}"`);
  const url = withDatabase(base, name);
  let handle: DbHandle | undefined;
  try {
    handle = await openPostgres(url, { max: 4 });
    await handle.migrate();
  } catch (err) {
    await adminQuery(base, `drop database if exists "${name}" with (force)`);
    throw err;
  }
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url },
    handle,
    async close() {
      await handle?.close().catch(() => {});
      await adminQuery(base, `drop database if exists "${name}" with (force)`);
    },
  };
}

/** A data folder of its own for the embedded database (one instance only). */
export function freshDataDir(): FaultDatabase {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-faults-'));
  return {
    kind: 'pglite',
    env: { DATABASE_URL: '', SWITCHBOARD_DATA_DIR: dir },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The environment of one instance: its name (in its lease owner id), the database, the model peer. */
export function instanceEnv(name: string, db: FaultDatabase, modelUrl: string): Record<string, string> {
  return {
    ...SHARED,
    ...db.env,
    SWITCHBOARD_INSTANCE_NAME: name,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: '',
  };
}
