import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { ensurePrivateDir } from '@/db/private-files';
import { readConfig, type Env } from '@/lib/config';
import { dataDir } from '@/lib/data-dir';
import { loadOncePerProcess } from '@/lib/process-singleton';

/** The generated secret's file in the data folder (embedded default only); `npm run backup` copies it. */
export const AUTH_SECRET_FILE = 'auth-secret';

/**
 * AUTH_SECRET, or — with the embedded database only — one created under `.data/` on first
 * start. With DATABASE_URL set, several instances share state and must share the secret, so a
 * missing AUTH_SECRET is an error rather than a per-instance secret that breaks sessions.
 */
export function getAuthSecret(env?: Env): Promise<string> {
  return loadOncePerProcess('authSecret', () => resolveAuthSecret(env));
}

export async function resolveAuthSecret(env: Env | undefined, dir = dataDir()): Promise<string> {
  // At least 32 characters when set (lib/config).
  const { AUTH_SECRET, DATABASE_URL } = readConfig(env);
  if (AUTH_SECRET) return AUTH_SECRET;
  if (DATABASE_URL) {
    throw new Error(
      'AUTH_SECRET is not set. With DATABASE_URL several instances share one database and must share one secret: set AUTH_SECRET to a ' +
        'random value of at least 32 characters (openssl rand -base64 32).',
    );
  }
  const file = path.join(dir, AUTH_SECRET_FILE);
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await ensurePrivateDir(dir);
  const secret = randomBytes(32).toString('base64url');
  // `wx`: if another start raced us, keep the file that won.
  await writeFile(file, secret, { mode: 0o600, flag: 'wx' }).catch(async (err) => {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  });
  return (await readFile(file, 'utf8')).trim();
}
