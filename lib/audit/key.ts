import { createHash } from 'node:crypto';

import { dataDir } from '@/lib/data-dir';
import { loadOncePerProcess } from '@/lib/process-singleton';
import { loadDeploymentKey } from '@/lib/secrets/deployment-key';

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

/** The generated key's file in the data folder (embedded default only); `npm run backup` copies it. */
export const AUDIT_KEY_FILE = 'audit-key';

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
export async function loadAuditKeyring(env?: Env, dir = dataDir()): Promise<AuditKeyring> {
  const { current, previous } = await loadDeploymentKey(
    {
      variable: 'AUDIT_KEY',
      file: AUDIT_KEY_FILE,
      sharedBecause: 'several instances append to one audit log and must share the key that signs it',
      advice: 'Keep it out of the database and its backups.',
    },
    env,
    dir,
  );
  return auditKeyring(current, previous);
}

/** The process-wide keyring (loaded once; a failed load is retried on the next call). */
export function getAuditKeyring(env?: Env): Promise<AuditKeyring> {
  return loadOncePerProcess('auditKeyring', () => loadAuditKeyring(env));
}
