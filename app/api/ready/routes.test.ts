import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { MIGRATIONS_FOLDER, type DbHandle } from '@/db/connection';
import { processSingleton } from '@/lib/process-singleton';
import { openTestDb } from '@/test/db';

import { GET as health } from '../health/route';
import { GET as ready } from './route';

/**
 * GET /api/health and GET /api/ready as Next.js calls them, on a test database put where the
 * runtime finds the process's database: liveness never touches it; readiness opens it, pings it
 * and compares the migrations drizzle recorded with the journal.
 */
describe('/api/health and /api/ready', () => {
  let h: DbHandle;
  // The process-wide database getDbHandle keeps (lib/server/database.ts), shared with the runtime.
  const db = processSingleton('db', () => ({ opening: undefined as Promise<DbHandle> | undefined }));
  let journal: { tag: string; when: number }[];

  beforeAll(async () => {
    vi.stubEnv('SWITCHBOARD_DATA_DIR', path.join(await mkdtemp(path.join(os.tmpdir(), 'sb-ready-')), 'data'));
    vi.stubEnv('SECRETS_KEY', randomBytes(32).toString('base64'));
    vi.stubEnv('AUTH_SECRET', randomBytes(32).toString('base64url'));
    h = await openTestDb('pglite');
    journal = JSON.parse(await readFile(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')).entries;
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  /** What opening the process's database comes to from now on. */
  function databaseIs(opening: Promise<DbHandle>) {
    opening.catch(() => {});
    db.opening = opening;
  }

  it('health answers 200 ok with no-store even while the database never opens', async () => {
    databaseIs(new Promise(() => {}));
    const res = health();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('ready answers 503 within its time limit when the database never opens', async () => {
    databaseIs(new Promise(() => {}));
    const started = Date.now();
    const res = await ready();
    expect(res.status).toBe(503);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      status: 'not_ready',
      problem: 'the database did not answer within 2000 ms (it may still be opening)',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("ready answers 503 when the database cannot be opened, without the driver's words (host, port) in the public answer", async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    databaseIs(Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:5432')));
    const res = await ready();
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'not_ready', problem: 'the database could not be opened (see the server log)' });
    expect(text).not.toContain('10.1.2.3');
    expect(log.mock.calls.flat().join(' ')).toContain('ECONNREFUSED 10.1.2.3:5432');
    log.mockRestore();
  });

  it('ready answers 200 with the database kind and every migration of the journal applied', async () => {
    databaseIs(Promise.resolve(h));
    const res = await ready();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      status: 'ready',
      database: 'pglite',
      migrations: { applied: journal.length, expected: journal.length },
    });
  });

  it('ready answers 503 naming the migration that is missing, and 200 again once it is applied', async () => {
    databaseIs(Promise.resolve(h));
    const last = journal.at(-1)!;
    await h.db.execute(sql`delete from drizzle.__drizzle_migrations where created_at = ${last.when}`);
    try {
      const res = await ready();
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body).toMatchObject({
        status: 'not_ready',
        database: 'pglite',
        migrations: { applied: journal.length - 1, expected: journal.length, missing: [last.tag] },
      });
      expect(body.problem).toBe(
        `1 of ${journal.length} migrations not applied: ${last.tag}. Run npm run db:migrate, or restart the app, which applies them.`,
      );
    } finally {
      await h.db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('restored-by-test', ${last.when})`);
    }
    expect((await ready()).status).toBe(200);
  });
});
