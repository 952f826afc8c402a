import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it, vi } from 'vitest';

import { liveHolders } from '@/db/data-dir-holders';
import { statementsSent } from '@/lib/ops/statement-count';

import { getDbHandle, poolSizeFrom } from './database';

async function modes(root: string): Promise<{ path: string; dir: boolean; mode: number }[]> {
  const out = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out.push({ path: path.relative(root, full), dir: entry.isDirectory(), mode: (await stat(full)).mode & 0o777 });
  }
  return out;
}

describe('the embedded database on disk', () => {
  const previous = { umask: process.umask() };
  let base: string;
  afterAll(async () => {
    await (await getDbHandle()).close();
    vi.unstubAllEnvs();
    process.umask(previous.umask);
    await rm(base, { recursive: true, force: true });
  });

  it('file permissions: the data folder is 0700 and the PGlite files 0600, even under a permissive umask', async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sb-perms-'));
    const dataDir = path.join(base, 'data');
    // An install from before the rule: the folder exists and is world-readable.
    process.umask(0o022);
    await mkdir(dataDir, { mode: 0o755 });
    vi.stubEnv('SWITCHBOARD_DATA_DIR', dataDir);
    // Blank counts as unset: the embedded database.
    vi.stubEnv('DATABASE_URL', '');

    await getDbHandle();
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const entries = await modes(path.join(dataDir, 'pglite'));
    expect(entries.filter((e) => !e.dir).length).toBeGreaterThan(10);
    expect(entries.filter((e) => e.dir && e.mode !== 0o700)).toEqual([]);
    expect(entries.filter((e) => !e.dir && e.mode !== 0o600)).toEqual([]);
    // This process says it holds the folder (what `npm run backup` / `restore` refuse), until it closes it.
    expect(await liveHolders(dataDir)).toMatchObject([{ pid: process.pid }]);

    // A new PGlite on disk plus every migration: seconds alone, far more on a loaded 2-core machine.
  }, 120_000);

  it('counts every statement it sends, for GET /api/metrics (switchboard_db_statements_total)', async () => {
    const counted = statementsSent();
    await (await getDbHandle()).db.execute(sql`select 1`);
    await (await getDbHandle()).db.execute(sql`select 2`);
    expect(statementsSent()).toBe(counted + 2);
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('is 10 connections unless set, and what it says when set', () => {
    expect(poolSizeFrom({})).toBe(10);
    expect(poolSizeFrom({ DATABASE_POOL_SIZE: '' })).toBe(10);
    expect(poolSizeFrom({ DATABASE_POOL_SIZE: '25' })).toBe(25);
  });

  it('refuses by name what is not a whole number from 1 to 100', () => {
    expect(() => poolSizeFrom({ DATABASE_POOL_SIZE: '0' })).toThrow('DATABASE_POOL_SIZE must be a whole number of at least 1 (got "0")');
    expect(() => poolSizeFrom({ DATABASE_POOL_SIZE: 'ten' })).toThrow(
      'DATABASE_POOL_SIZE must be a whole number of at least 1 (got "ten")',
    );
    expect(() => poolSizeFrom({ DATABASE_POOL_SIZE: '2.5' })).toThrow('DATABASE_POOL_SIZE must be a whole number');
    expect(() => poolSizeFrom({ DATABASE_POOL_SIZE: '101' })).toThrow('DATABASE_POOL_SIZE must be at most 100 (got 101)');
  });
});
