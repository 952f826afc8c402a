import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPglite } from '@/db/connection';
import { holdDataDir, HOLDERS_FOLDER } from '@/db/data-dir-holders';
import { createUser, findUserByEmail } from '@/db/queries/users';
import { loadAuditKeyring } from '@/lib/audit/key';
import { resolveAuthSecret } from '@/lib/auth/secret';
import { loadSecretBox } from '@/lib/secrets/secret-box';

import { backupDataDir, BackupRefused, restoreDataDir } from './backup';
import { readTar } from './tar';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const NO_KEYS_IN_ENV = { AUTH_SECRET: '', SECRETS_KEY: '', AUDIT_KEY: '', DATABASE_URL: '' };
const KEY_FILES = ['auth-secret', 'secrets-key', 'audit-key'];

/** Runs `npm run <script> -- …` as the operator would (the script itself, through tsx). */
async function script(name: 'backup' | 'restore', args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [`scripts/${name}.ts`, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function modes(root: string) {
  const out: { path: string; dir: boolean; mode: number }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out.push({ path: path.relative(root, full), dir: entry.isDirectory(), mode: (await stat(full)).mode & 0o777 });
  }
  return out;
}

async function refusal(work: Promise<unknown>): Promise<string> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BackupRefused);
  return (err as Error).message;
}

describe('npm run backup / npm run restore (the embedded database)', () => {
  let base: string;
  /** A data folder as the app leaves it: a migrated database with one user, and the three generated keys. */
  let source: string;
  let keys: Record<string, string>;

  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sb-backup-'));
    source = path.join(base, 'data');
    const handle = await openPglite({ dataDir: path.join(source, 'pglite') });
    await handle.migrate();
    await createUser(handle.db, { email: 'kept@example.test' });
    await handle.close();
    await resolveAuthSecret({}, source);
    await loadSecretBox({}, source);
    await loadAuditKeyring({}, source);
    keys = Object.fromEntries(await Promise.all(KEY_FILES.map(async (f) => [f, await readFile(path.join(source, f), 'utf8')])));
  }, 120_000);
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('backs up to one 0600 tar (manifest, database dump, keys); restored into an empty folder: user and keys, 0700 / 0600', async () => {
    const file = path.join(base, 'first.tar');
    const report = await backupDataDir(source, file, NO_KEYS_IN_ENV);
    expect(report.keys).toEqual(KEY_FILES);
    expect(report.migrations.missing).toEqual([]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const entries = readTar(await readFile(file));
    expect([...entries.keys()]).toEqual(['switchboard-backup.json', 'pglite-data.tar.gz', ...KEY_FILES.map((f) => `keys/${f}`)]);
    expect(JSON.parse(entries.get('switchboard-backup.json')!.toString())).toMatchObject({ format: 'switchboard-backup', version: 1 });
    // The backup let go of the folder it held while it ran.
    expect(await readdir(path.join(source, HOLDERS_FOLDER))).toEqual([]);

    const target = path.join(base, 'restored');
    const restored = await restoreDataDir(target, file, { env: NO_KEYS_IN_ENV });
    expect(restored).toMatchObject({ dataDir: target, keys: KEY_FILES, previous: null, warnings: [] });
    for (const f of KEY_FILES) expect(await readFile(path.join(target, f), 'utf8')).toBe(keys[f]);
    expect((await stat(target)).mode & 0o777).toBe(0o700);
    const onDisk = await modes(target);
    expect(onDisk.filter((e) => e.dir && e.mode !== 0o700)).toEqual([]);
    expect(onDisk.filter((e) => !e.dir && e.mode !== 0o600)).toEqual([]);
    expect(existsSync(`${target}.restoring-${process.pid}`)).toBe(false);
    const handle = await openPglite({ dataDir: path.join(target, 'pglite') });
    try {
      expect((await findUserByEmail(handle.db, 'kept@example.test'))?.email).toBe('kept@example.test');
    } finally {
      await handle.close();
    }
  }, 180_000);

  it('refuses to back up a folder a live process holds (as the app does), an existing file, and a missing database', async () => {
    const release = await holdDataDir(source, 'app');
    try {
      const said = await refusal(backupDataDir(source, path.join(base, 'held.tar'), NO_KEYS_IN_ENV));
      expect(said).toContain(`${source} is in use by app (pid ${process.pid}`);
      expect(said).toContain('stop it before you back it up');
      expect(existsSync(path.join(base, 'held.tar'))).toBe(false);
    } finally {
      release();
    }
    const existing = path.join(base, 'existing.tar');
    await writeFile(existing, 'not a backup');
    expect(await refusal(backupDataDir(source, existing, NO_KEYS_IN_ENV))).toBe(
      `${existing} already exists: choose a new file name (a backup never overwrites one).`,
    );
    expect(await readFile(existing, 'utf8')).toBe('not a backup');
    expect(await refusal(backupDataDir(path.join(base, 'nothing'), path.join(base, 'x.tar'), NO_KEYS_IN_ENV))).toMatch(
      /^There is no embedded database at .*nothing\/pglite/,
    );
  });

  it('a holder whose process is gone (a crash) does not block a backup', async () => {
    const holders = path.join(source, HOLDERS_FOLDER);
    await mkdir(holders, { recursive: true });
    // A pid far above any pid_max: no such process.
    const ghost = { pid: 2 ** 30, host: os.hostname(), what: 'app', since: new Date().toISOString() };
    await writeFile(path.join(holders, `${os.hostname()}-${ghost.pid}.json`), JSON.stringify(ghost));
    const report = await backupDataDir(source, path.join(base, 'after-crash.tar'), NO_KEYS_IN_ENV);
    expect(report.keys).toEqual(KEY_FILES);
    expect(await readdir(holders)).toEqual([]);
  }, 120_000);

  it('restore refuses an existing database without --force, a held folder even with it; --force keeps the old one aside', async () => {
    const file = path.join(base, 'for-force.tar');
    await backupDataDir(source, file, NO_KEYS_IN_ENV);
    const target = path.join(base, 'occupied');
    await mkdir(target, { mode: 0o700 });
    await writeFile(path.join(target, 'secrets-key'), 'the current key', { mode: 0o600 });

    expect(await refusal(restoreDataDir(target, file, { env: NO_KEYS_IN_ENV }))).toBe(
      `${target} already holds secrets-key: a restore replaces the whole folder. Run again with --force to do so ` +
        '(the current folder is kept beside it, renamed).',
    );
    expect(await readFile(path.join(target, 'secrets-key'), 'utf8')).toBe('the current key');

    const release = await holdDataDir(target, 'app');
    try {
      expect(await refusal(restoreDataDir(target, file, { force: true, env: NO_KEYS_IN_ENV }))).toContain(
        'stop it before you restore over it',
      );
    } finally {
      release();
    }
    expect(await readFile(path.join(target, 'secrets-key'), 'utf8')).toBe('the current key');

    const forced = await restoreDataDir(target, file, { force: true, env: NO_KEYS_IN_ENV });
    expect(forced.previous).toMatch(/occupied\.before-restore-/);
    expect(await readFile(path.join(forced.previous!, 'secrets-key'), 'utf8')).toBe('the current key');
    expect(await readFile(path.join(target, 'secrets-key'), 'utf8')).toBe(keys['secrets-key']);
  }, 180_000);

  it('restore says which keys are missing from a backup or overridden by the environment, and refuses what is not a backup', async () => {
    // A folder whose secrets key came from SECRETS_KEY: its backup has no secrets-key file.
    const partial = path.join(base, 'env-keys');
    const handle = await openPglite({ dataDir: path.join(partial, 'pglite') });
    await handle.migrate();
    await handle.close();
    await resolveAuthSecret({}, partial);
    await loadAuditKeyring({}, partial);
    const file = path.join(base, 'env-keys.tar');
    const report = await backupDataDir(partial, file, { ...NO_KEYS_IN_ENV, SECRETS_KEY: 'set' });
    expect(report).toMatchObject({ keys: ['auth-secret', 'audit-key'], fromEnvironment: ['SECRETS_KEY'] });

    const restored = await restoreDataDir(path.join(base, 'env-restored'), file, { env: { ...NO_KEYS_IN_ENV, AUDIT_KEY: 'set' } });
    expect(restored.warnings).toEqual([
      'The backup holds no secrets-key: set SECRETS_KEY to the key this database was used with before starting the app, ' +
        'or a new one is generated and stored server credentials (headers, OAuth tokens) will not open.',
      'AUDIT_KEY is set, so the app uses it and not the audit-key restored from the backup.',
    ]);

    const junk = path.join(base, 'junk.tar');
    await writeFile(junk, Buffer.alloc(2048, 1));
    expect(await refusal(restoreDataDir(path.join(base, 'never'), junk, { env: NO_KEYS_IN_ENV }))).toMatch(/is not a Switchboard backup/);
    expect(await refusal(restoreDataDir(path.join(base, 'never'), path.join(base, 'absent.tar'), { env: NO_KEYS_IN_ENV }))).toMatch(
      /^There is no backup file at /,
    );
    expect(existsSync(path.join(base, 'never'))).toBe(false);
  }, 180_000);

  it('the scripts: pg_dump / pg_restore with DATABASE_URL, usage, a folder held by another process (the app): exit 1', async () => {
    const env = { SWITCHBOARD_DATA_DIR: source, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const backup = await script('backup', [path.join(base, 'pg.tar')], env);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain('DATABASE_URL is set: this backs up the embedded database only. Use pg_dump for a Postgres server');
    const restore = await script('restore', [path.join(base, 'first.tar')], env);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain('Use pg_restore (or psql) for a Postgres server');
    expect((await script('backup', [], env)).code).toBe(2);
    expect((await script('restore', ['--force'], env)).stderr).toContain('Usage: npm run restore -- <file> [--force]');

    // This test process plays the app; the script is another process, as an operator's would be.
    const release = await holdDataDir(source, 'next');
    try {
      const held = await script('backup', [path.join(base, 'held-by-app.tar')], { SWITCHBOARD_DATA_DIR: source, DATABASE_URL: '' });
      expect(held.code).toBe(1);
      expect(held.stderr).toContain(`is in use by next (pid ${process.pid}`);
    } finally {
      release();
    }
  }, 120_000);
});
