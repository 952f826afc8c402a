import { existsSync } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

import { openPglite } from '@/db/connection';
import { describeHolders, holdDataDir, liveHolders } from '@/db/data-dir-holders';
import { migrationStatus, type MigrationStatus } from '@/db/migration-status';
import { ensurePrivateDir, restrictTree } from '@/db/private-files';
import { AUDIT_KEY_FILE } from '@/lib/audit/key';
import { AUTH_SECRET_FILE } from '@/lib/auth/secret';
import { readConfig, type Config, type Env } from '@/lib/config';
import { SECRETS_KEY_FILE } from '@/lib/secrets/secret-box';

import { readTar, writeTar } from './tar';

/** A refusal said in one sentence to the operator (the scripts print it and exit 1). */
export class BackupRefused extends Error {}

/**
 * The keys the embedded default generates beside the database. The database is not readable
 * without them: stored server credentials are sealed under the secrets key and the audit log is
 * signed under the audit key. Each is read from its variable instead when that is set, and is then
 * not in the folder, nor in a backup.
 */
const KEYS = [
  { file: AUTH_SECRET_FILE, variable: 'AUTH_SECRET', without: 'everyone is signed out (nothing else is lost)' },
  { file: SECRETS_KEY_FILE, variable: 'SECRETS_KEY', without: 'stored server credentials (headers, OAuth tokens) will not open' },
  { file: AUDIT_KEY_FILE, variable: 'AUDIT_KEY', without: 'the audit log will no longer verify (its entries name a key it lacks)' },
] as const;

const MANIFEST = 'switchboard-backup.json';
const DATABASE = 'pglite-data.tar.gz';
const FORMAT = 'switchboard-backup';

interface Manifest {
  format: typeof FORMAT;
  version: 1;
  createdAt: string;
  /** PGlite's own dump of its data folder (`dumpDataDir`, gzipped), opened again with `loadDataDir`. */
  database: typeof DATABASE;
  migrations: MigrationStatus;
  /** The key files of the data folder that are in the backup, under `keys/`. */
  keys: string[];
}

export interface BackupReport {
  file: string;
  bytes: number;
  migrations: MigrationStatus;
  keys: string[];
  /** Keys the app reads from the environment: not in the backup, to be kept where they are kept. */
  fromEnvironment: string[];
}

function refuseServerDatabase(config: Config, tool: string) {
  if (config.DATABASE_URL) {
    throw new BackupRefused(
      `DATABASE_URL is set: this backs up the embedded database only. Use ${tool} for a Postgres server, and keep ` +
        'AUTH_SECRET, SECRETS_KEY and AUDIT_KEY with it (without them its credentials and audit log cannot be read).',
    );
  }
}

async function refuseIfHeld(dataDir: string, doing: string) {
  const holders = await liveHolders(dataDir);
  if (holders.length) {
    throw new BackupRefused(
      `${dataDir} is in use by ${describeHolders(holders)}: stop it before you ${doing} (PGlite allows one process per ` +
        `data folder). If nothing runs there any more, delete the files in ${path.join(dataDir, 'pglite.holders')}.`,
    );
  }
}

/**
 * `npm run backup -- <file>`: one tar file, written 0600, holding PGlite's dump of the database,
 * the key files of the data folder (`keys/…`) and a manifest. It is as secret as the data folder
 * itself. Refused with DATABASE_URL, while a process has the folder open, and over an existing file.
 */
export async function backupDataDir(dataDir: string, file: string, env?: Env): Promise<BackupReport> {
  const config = readConfig(env);
  refuseServerDatabase(config, 'pg_dump');
  const pgliteDir = path.join(dataDir, 'pglite');
  if (!existsSync(pgliteDir))
    throw new BackupRefused(`There is no embedded database at ${pgliteDir} (SWITCHBOARD_DATA_DIR): nothing to back up.`);
  if (existsSync(file)) throw new BackupRefused(`${file} already exists: choose a new file name (a backup never overwrites one).`);
  await refuseIfHeld(dataDir, 'back it up');

  const release = await holdDataDir(dataDir, 'backup');
  let dump: Buffer;
  let migrations: MigrationStatus;
  try {
    const handle = await openPglite({ dataDir: pgliteDir });
    try {
      migrations = await migrationStatus(handle.db);
      dump = await promisify(gzip)(Buffer.from(await (await handle.dumpDataDir!()).arrayBuffer()));
    } finally {
      await handle.close();
    }
    await restrictTree(pgliteDir);
  } finally {
    release();
  }

  const keys: { name: string; data: Buffer }[] = [];
  for (const key of KEYS) {
    const data = await readFile(path.join(dataDir, key.file)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (data) keys.push({ name: key.file, data });
  }
  const manifest: Manifest = {
    format: FORMAT,
    version: 1,
    createdAt: new Date().toISOString(),
    database: DATABASE,
    migrations,
    keys: keys.map((k) => k.name),
  };
  const archive = writeTar([
    { name: MANIFEST, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) },
    { name: DATABASE, data: dump },
    ...keys.map((k) => ({ name: `keys/${k.name}`, data: k.data })),
  ]);
  // Written aside, then renamed: a backup cut short by a crash is never mistaken for one.
  const partial = `${file}.partial`;
  await writeFile(partial, archive, { mode: 0o600, flag: 'wx' });
  await rename(partial, file);
  const fromEnvironment = KEYS.filter((k) => config[k.variable]).map((k) => k.variable);
  return { file, bytes: archive.length, migrations, keys: manifest.keys, fromEnvironment };
}

export interface RestoreReport {
  dataDir: string;
  migrations: MigrationStatus;
  keys: string[];
  /** Where the folder that was replaced (with --force) now is. */
  previous: string | null;
  /** Sentences about keys: missing from the backup, or overridden by a variable that is set. */
  warnings: string[];
}

/**
 * `npm run restore -- <file> [--force]`: puts a backup back as the data folder, database and keys
 * together (a database with another deployment's keys is as unreadable as one without). Built in a
 * folder beside it, then swapped in by renames; with --force the folder it replaces is kept as
 * `<folder>.before-restore-<time>`, never deleted. Refused with DATABASE_URL, while a process has
 * the folder open (--force or not), and over an existing database or key without --force.
 */
export async function restoreDataDir(dataDir: string, file: string, opts: { force?: boolean; env?: Env } = {}): Promise<RestoreReport> {
  const config = readConfig(opts.env);
  refuseServerDatabase(config, 'pg_restore (or psql)');
  const { manifest, files } = await readBackup(file);
  await refuseIfHeld(dataDir, 'restore over it');
  const existing = ['pglite', ...KEYS.map((k) => k.file)].filter((name) => existsSync(path.join(dataDir, name)));
  if (existing.length && !opts.force) {
    throw new BackupRefused(
      `${dataDir} already holds ${existing.join(', ')}: a restore replaces the whole folder. Run again with --force to do so ` +
        '(the current folder is kept beside it, renamed).',
    );
  }

  const staging = `${dataDir}.restoring-${process.pid}`;
  if (existsSync(staging)) throw new BackupRefused(`${staging} is left from an earlier restore: delete it, then run again.`);
  let migrations: MigrationStatus;
  try {
    migrations = await buildDataDir(staging, manifest, files, file);
  } catch (err) {
    // Nothing was swapped yet: the half-built folder goes, the current one was never touched.
    await rm(staging, { recursive: true, force: true });
    throw err;
  }

  let previous: string | null = null;
  if (existsSync(dataDir)) {
    previous = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(dataDir, previous);
  }
  await rename(staging, dataDir);
  return { dataDir, migrations, keys: manifest.keys, previous, warnings: keyWarnings(manifest.keys, config) };
}

/** The restored data folder, built at `dir`: the database from its dump (0600 files), then the key files (0600). */
async function buildDataDir(dir: string, manifest: Manifest, files: Map<string, Buffer>, file: string): Promise<MigrationStatus> {
  await ensurePrivateDir(dir);
  const dump = await promisify(gunzip)(files.get(manifest.database)!).catch((err: Error) => {
    throw new BackupRefused(`${file} is damaged: its database does not unpack (${err.message}).`);
  });
  const handle = await openPglite({ dataDir: path.join(dir, 'pglite'), loadDataDir: new Blob([new Uint8Array(dump)]) });
  let migrations: MigrationStatus;
  try {
    migrations = await migrationStatus(handle.db);
  } finally {
    await handle.close();
  }
  await restrictTree(path.join(dir, 'pglite'));
  for (const name of manifest.keys) await writeFile(path.join(dir, name), files.get(`keys/${name}`)!, { mode: 0o600, flag: 'wx' });
  return migrations;
}

async function readBackup(file: string): Promise<{ manifest: Manifest; files: Map<string, Buffer> }> {
  if (!existsSync(file) || !(await stat(file)).isFile()) throw new BackupRefused(`There is no backup file at ${file}.`);
  let files: Map<string, Buffer>;
  let manifest: Manifest;
  try {
    files = readTar(await readFile(file));
    manifest = JSON.parse(files.get(MANIFEST)?.toString('utf8') ?? 'null') as Manifest;
  } catch (err) {
    throw new BackupRefused(`${file} is not a Switchboard backup: ${(err as Error).message}.`);
  }
  if (manifest?.format !== FORMAT) throw new BackupRefused(`${file} is not a Switchboard backup (it has no ${MANIFEST}).`);
  if (manifest.version !== 1)
    throw new BackupRefused(`${file} is a backup of version ${manifest.version}, which this release cannot read.`);
  const missing = [manifest.database, ...manifest.keys.map((k) => `keys/${k}`)].filter((name) => !files.has(name));
  if (missing.length) throw new BackupRefused(`${file} is incomplete: it lacks ${missing.join(', ')}.`);
  const unknown = manifest.keys.filter((k) => !KEYS.some((key) => key.file === k));
  if (unknown.length) throw new BackupRefused(`${file} names key files this release does not know: ${unknown.join(', ')}.`);
  return { manifest, files };
}

function keyWarnings(restored: readonly string[], config: Config): string[] {
  return KEYS.flatMap((key) => {
    const inBackup = restored.includes(key.file);
    if (inBackup && config[key.variable])
      return [`${key.variable} is set, so the app uses it and not the ${key.file} restored from the backup.`];
    if (!inBackup && !config[key.variable]) {
      return [
        `The backup holds no ${key.file}: set ${key.variable} to the key this database was used with before starting the app, ` +
          `or a new one is generated and ${key.without}.`,
      ];
    }
    return [];
  });
}
