import { createCipheriv, randomBytes } from 'node:crypto';

import { keyIdOf } from '@/lib/secrets/secret-box';

/**
 * A value in the v1 format, as releases before values were bound to their row sealed it
 * (associated data: `v1.<keyId>` only). The app no longer writes it; tests use it to show that
 * stored v1 values still open and that `npm run rotate-secrets` upgrades them.
 */
export function sealV1(key: Buffer, plaintext: string): string {
  const keyId = keyIdOf(key);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`v1.${keyId}`));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}
