import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { ensurePrivateDir } from '@/db/private-files';
import { readConfig, type Env } from '@/lib/config';

/** A 32-byte key given as base64; the error names where it came from and how to make one. */
export function parseKey(value: string, variable: string): Buffer {
  const trimmed = value.trim();
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    const got = key.length === 0 ? 'something that is not base64' : `${key.length} bytes`;
    throw new Error(`${variable} must be 32 bytes encoded as base64 (got ${got}). Create one with: openssl rand -base64 32`);
  }
  return key;
}

export interface DeploymentKeySpec {
  /** The variable that holds the key (`<variable>_PREVIOUS` holds older ones, comma-separated). */
  variable: 'SECRETS_KEY' | 'AUDIT_KEY';
  /** The file under the data folder that holds a generated key on the embedded default. */
  file: string;
  /** Why a server database needs the variable set, said when it is not. */
  sharedBecause: string;
  /** A last sentence for that error (e.g. where to keep the key). */
  advice?: string;
}

/**
 * A key of this deployment (the secrets key, the audit key): from its variable when set; without
 * it, on the embedded default, one generated once under the data folder (0600); with DATABASE_URL
 * and no key, an error, because instances sharing a database must share the key.
 */
export async function loadDeploymentKey(
  spec: DeploymentKeySpec,
  env: Env | undefined,
  dir: string,
): Promise<{ current: Buffer; previous: Buffer[] }> {
  const config = readConfig(env);
  const previousVariable = `${spec.variable}_PREVIOUS` as const;
  const previous = config[previousVariable].map((value, i) => parseKey(value, `${previousVariable} (entry ${i + 1})`));
  const value = config[spec.variable];
  if (value) return { current: parseKey(value, spec.variable), previous };
  if (config.DATABASE_URL) {
    throw new Error(
      `${spec.variable} is not set. With DATABASE_URL ${spec.sharedBecause}: ` +
        `set ${spec.variable} to 32 random bytes in base64 (openssl rand -base64 32).${spec.advice ? ` ${spec.advice}` : ''}`,
    );
  }
  return { current: await generatedKey(path.join(dir, spec.file)), previous };
}

async function generatedKey(file: string): Promise<Buffer> {
  const read = async () => parseKey(await readFile(file, 'utf8'), `the key file ${file}`);
  try {
    return await read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await ensurePrivateDir(path.dirname(file));
  // `wx`: if another start raced us, keep the file that won.
  await writeFile(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' }).catch((err) => {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  });
  return read();
}
