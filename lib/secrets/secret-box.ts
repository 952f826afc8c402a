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
 */
export interface SecretBox {
  /** `v1.<keyId>.<iv>.<tag>.<ciphertext>`, each part base64url; a fresh random IV per call. */
  seal(plaintext: string): string;
  /** The plaintext, or throws SecretBoxError (tampered value, or a key it does not hold). */
  open(sealed: string): string;
  /** Short id of the current key (what `seal` writes). */
  keyId: string;
}

/** The id of the key a sealed value names, or null when it is not a sealed value. */
export function sealedKeyId(sealed: string): string | null {
  const parts = sealed.split('.');
  return parts.length === 5 && parts[0] === VERSION ? parts[1]! : null;
}

/** Never carries the plaintext or the key: its message is safe to log. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

const VERSION = 'v1';
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
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(`${VERSION}.${keyId}`));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, keyId, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    open(sealed) {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('Not a sealed secret (unknown format).');
      const [, id, ivPart, tagPart, dataPart] = parts as [string, string, string, string, string];
      const key = keys.get(id);
      if (!key) {
        throw new SecretBoxError(`This secret was sealed with key ${id}, which is neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS.`);
      }
      const iv = Buffer.from(ivPart, 'base64url');
      const tag = Buffer.from(tagPart, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('Not a sealed secret (bad IV or tag).');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(`${VERSION}.${id}`));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(dataPart, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('A sealed secret failed its integrity check (altered, or sealed with another key of the same id).');
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
