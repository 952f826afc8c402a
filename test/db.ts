import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { inject } from 'vitest';

import { openPglite, openPostgres, type DbHandle, type StatementObserver } from '../db/connection';
import { adminQuery, withDatabase } from './pg-admin';

export type TestDbKind = 'pglite' | 'postgres';

/** The databases every database suite runs on: PGlite always, Postgres when DATABASE_URL is set. */
export const TEST_DATABASES: { kind: TestDbKind; available: boolean }[] = [
  { kind: 'pglite', available: true },
  { kind: 'postgres', available: Boolean(process.env.DATABASE_URL) },
];

/** A fresh, migrated database of its own; close() throws it away. On Postgres `url` reaches it from another handle or process. */
export async function openTestDb(kind: TestDbKind, opts: { onStatement?: StatementObserver } = {}): Promise<DbHandle & { url?: string }> {
  if (kind === 'pglite') {
    const file = await readFile(inject('pgliteTemplate'));
    return openPglite({ loadDataDir: new Blob([file]), onStatement: opts.onStatement });
  }
  const url = process.env.DATABASE_URL;
  const template = inject('postgresTemplate');
  if (!url || !template) throw new Error('openTestDb(postgres) needs DATABASE_URL');
  const name = `sb_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `create database "${name}" template "${template}"`);
  const handle = await openPostgres(withDatabase(url, name), { max: 4, onStatement: opts.onStatement });
  return {
    ...handle,
    url: withDatabase(url, name),
    async close() {
      await handle.close();
      await adminQuery(url, `drop database if exists "${name}" with (force)`);
    },
  };
}
