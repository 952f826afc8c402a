import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

import { dataDir } from '@/lib/data-dir';
import { loadOncePerProcess } from '@/lib/process-singleton';

import { loadDeploymentKey, parseKey } from './deployment-key';

type Env = Record<string, string | undefined>;

/**
 * Secrets at rest (header credentials, OAuth tokens and client secrets): AES-256-GCM under a
 * key of their own, never the auth secret. A sealed value names the key that sealed it, so
 * the key can be rotated: `SECRETS_KEY_PREVIOUS` keys still open old values until
 * `npm run rotate-secrets` re-seals them under the current key.
 *
 * Each value is bound to where it is stored (`SealContext`: table, column, the row and its
 * owner) through the GCM associated data, so a value copied into another row or column — by
 * someone with write access to the database, or by a bug — fails its integrity check there
 * instead of lending one person's credentials to another's server.
 */
export interface SecretBox {
  /** `v2.<keyId>.<iv>.<tag>.<ciphertext>`, each part base64url; a fresh random IV per call. */
  seal(plaintext: string, context: SealContext): string;
  /**
   * The plaintext, or throws SecretBoxError (tampered value, sealed for another place, or a
   * key it does not hold). A `v1` value (sealed before contexts existed) opens without one.
   */
  open(sealed: string, context: SealContext): string;
  /** Short id of the current key (what `seal` writes). */
  keyId: string;
}

/**
 * Where a sealed value is stored. Part of the sealed data: these names are fixed strings (see
 * lib/secrets/seal-contexts.ts), so renaming a column in the schema does not orphan its values.
 */
export interface SealContext {
  table: string;
  column: string;
  /** What identifies the row, and whose it is: name → value (e.g. `{ id, userId }`). At least one. */
  row: Readonly<Record<string, string>>;
}

/** The sealed formats: `v1` (associated data: version and key id), `v2` (also the SealContext). */
export type SealedVersion = 'v1' | 'v2';

/** The id of the key a sealed value names, or null when it is not a sealed value. */
export function sealedKeyId(sealed: string): string | null {
  return parseSealed(sealed)?.keyId ?? null;
}

/** The format of a sealed value, or null when it is not one. */
export function sealedVersion(sealed: string): SealedVersion | null {
  return parseSealed(sealed)?.version ?? null;
}

function parseSealed(sealed: string): { version: SealedVersion; keyId: string; iv: string; tag: string; data: string } | null {
  const parts = sealed.split('.');
  if (parts.length !== 5) return null;
  const [version, keyId, iv, tag, data] = parts as [string, string, string, string, string];
  return version === 'v1' || version === 'v2' ? { version, keyId, iv, tag, data } : null;
}

/**
 * The associated data of a value. v2 appends the context as a JSON array — [table, column,
 * [[name, value], …] sorted by name] — whose quoting makes the encoding unambiguous (no two
 * contexts give the same bytes, whatever characters the values hold). v1 values were sealed
 * before contexts existed: their data is the version and key id only, so they open wherever
 * they are (as they always did) until `npm run rotate-secrets` re-seals them as v2. Nothing
 * writes v1 any more: once the key they were sealed under is rotated out, none opens at all.
 */
function associatedData(version: SealedVersion, keyId: string, context: SealContext): Buffer {
  if (version === 'v1') return Buffer.from(`v1.${keyId}`);
  const row = Object.entries(context.row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(`${version}.${keyId}.${JSON.stringify([context.table, context.column, row])}`);
}

/** A context missing a part would bind the value to less than it claims: a programming error, said at once. */
function checkContext(context: SealContext): void {
  const row = Object.entries(context.row);
  if (!context.table || !context.column || row.length === 0 || row.some(([name, value]) => !name || !value)) {
    throw new Error(`A SealContext needs a table, a column and a non-empty row key (got ${describeContext(context)}).`);
  }
}

/** Where the value was to open, for an error message: table and column only (row keys may be personal). */
function describeContext(context: SealContext): string {
  return `${context.table || '?'}.${context.column || '?'}`;
}

/** Never carries the plaintext or the key: its message is safe to log. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

/** What `seal` writes. */
const VERSION: SealedVersion = 'v2';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The generated key's file in the data folder (embedded default only); `npm run backup` copies it. */
export const SECRETS_KEY_FILE = 'secrets-key';

/** A short, stable id of a key (not reversible): the first 8 base64url chars of its SHA-256. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('switchboard-secrets-key-id').update(key).digest('base64url').slice(0, 8);
}

/** Parses one base64 (or base64url) 32-byte key; `variable` names where it came from for the error. */
export { parseKey };

/** A box sealing with `current` and opening with it or any of `previous`. */
export function createSecretBox(current: Buffer, previous: Buffer[] = []): SecretBox {
  const keys = new Map<string, Buffer>();
  for (const key of previous) keys.set(keyIdOf(key), key);
  const keyId = keyIdOf(current);
  keys.set(keyId, current);

  return {
    keyId,
    seal(plaintext, context) {
      checkContext(context);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(associatedData(VERSION, keyId, context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, keyId, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    open(sealed, context) {
      checkContext(context);
      const parsed = parseSealed(sealed);
      if (!parsed) throw new SecretBoxError(`The value in ${describeContext(context)} is not a sealed secret (unknown format).`);
      const key = keys.get(parsed.keyId);
      if (!key) {
        throw new SecretBoxError(
          `The secret in ${describeContext(context)} was sealed with key ${parsed.keyId}, ` +
            'which is neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS.',
        );
      }
      const iv = Buffer.from(parsed.iv, 'base64url');
      const tag = Buffer.from(parsed.tag, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
        throw new SecretBoxError(`The value in ${describeContext(context)} is not a sealed secret (bad IV or tag).`);
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        // A v1 value is accepted without its context (see associatedData).
        decipher.setAAD(associatedData(parsed.version, parsed.keyId, context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(parsed.data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError(
          `The sealed secret in ${describeContext(context)} failed its integrity check: ` +
            'altered, sealed for another row or column, or sealed with another key of the same id.',
        );
      }
    },
  };
}

/**
 * The box for this deployment. `SECRETS_KEY` (32 bytes, base64) when set; without it, on the
 * embedded default, a key generated once under the data folder (0600); with DATABASE_URL and
 * no key, an error: instances sharing a database must share the key.
 */
export async function loadSecretBox(env?: Env, dir = dataDir()): Promise<SecretBox> {
  const { current, previous } = await loadDeploymentKey(
    {
      variable: 'SECRETS_KEY',
      file: SECRETS_KEY_FILE,
      sharedBecause: 'several instances share one database and must share the key that encrypts stored credentials',
    },
    env,
    dir,
  );
  return createSecretBox(current, previous);
}

/** The process-wide box (loaded once; a failed load is retried on the next call). */
export function getSecretBox(env?: Env): Promise<SecretBox> {
  return loadOncePerProcess('secretBox', () => loadSecretBox(env));
}
