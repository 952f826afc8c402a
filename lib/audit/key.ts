import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { ensurePrivateDir } from '@/db/private-files';
import { dataDir } from '@/lib/data-dir';
import { processSingleton } from '@/lib/process-singleton';
import { parseKey } from '@/lib/secrets/secret-box';

type Env = Record<string, string | undefined>;

/**
 * The audit log's HMAC key: never stored in the database, so whoever can write the database
 * cannot forge an entry. `current` signs new entries; older keys (after a rotation) still check
 * the entries they signed, found by the key id each entry names.
 */
export interface AuditKeyring {
  current: { id: string; key: Buffer };
  byId: ReadonlyMap<string, Buffer>;
}

const KEY_FILE = 'audit-key';

/** A short, stable, non-reversible id of a key (what each entry names). */
export function auditKeyId(key: Buffer): string {
  return createHash('sha256').update('switchboard-audit-key-id').update(key).digest('base64url').slice(0, 8);
}

export function auditKeyring(current: Buffer, previous: Buffer[] = []): AuditKeyring {
  const byId = new Map<string, Buffer>();
  for (const key of previous) byId.set(auditKeyId(key), key);
  const id = auditKeyId(current);
  byId.set(id, current);
  return { current: { id, key: current }, byId };
}

/**
 * `AUDIT_KEY` (32 bytes, base64) when set. Without it, on the embedded database, a key generated
 * once beside the auth secret in the data folder (0600), as the auth secret and the secrets key
 * are. With DATABASE_URL and no AUDIT_KEY: an error. Instances sharing a database append to the
 * same chains, so they must share the key — a key per instance would make every chain look
 * forged — and deriving one from AUTH_SECRET or SECRETS_KEY would tie the log to secrets that are
 * rotated for other reasons (a rotation would break every chain written before it).
 */
export async function loadAuditKeyring(env: Env = process.env, dir = dataDir()): Promise<AuditKeyring> {
  const previous = (env.AUDIT_KEY_PREVIOUS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((value, i) => parseKey(value, `AUDIT_KEY_PREVIOUS (entry ${i + 1})`));
  if (env.AUDIT_KEY) return auditKeyring(parseKey(env.AUDIT_KEY, 'AUDIT_KEY'), previous);
  if (env.DATABASE_URL) {
    throw new Error(
      'AUDIT_KEY is not set. With DATABASE_URL several instances append to one audit log and must share the key that signs it: ' +
        'set AUDIT_KEY to 32 random bytes in base64 (openssl rand -base64 32), and keep it out of the database and its backups.',
    );
  }
  return auditKeyring(await generatedKey(dir), previous);
}

async function generatedKey(dir: string): Promise<Buffer> {
  const file = path.join(dir, KEY_FILE);
  const read = async () => parseKey(await readFile(file, 'utf8'), `the key file ${file}`);
  try {
    return await read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await ensurePrivateDir(dir);
  // `wx`: if another start raced us, keep the file that won.
  await writeFile(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' }).catch((err) => {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  });
  return read();
}

const state = processSingleton('auditKeyring', () => ({ cached: undefined as Promise<AuditKeyring> | undefined }));

/** The process-wide keyring (loaded once; a failed load is retried on the next call). */
export function getAuditKeyring(env: Env = process.env): Promise<AuditKeyring> {
  state.cached ??= loadAuditKeyring(env).catch((err) => {
    state.cached = undefined;
    throw err;
  });
  return state.cached;
}
