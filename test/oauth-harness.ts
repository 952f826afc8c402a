import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Db } from '@/db/connection';
import { authSessions, users } from '@/db/schema';
import { clientMetadataDocument } from '@/lib/mcp/oauth/client-metadata';
import type { OAuthDeps, SecretBox } from '@/lib/mcp/oauth/types';

import { loopbackFetch } from './loopback-fetch';

/**
 * A SecretBox for tests with the same contract as lib/secrets (AES-256-GCM, key id in the sealed
 * text, a previous key still opens what it sealed).
 */
export function testSecretBox(current: string, previous?: string): SecretBox {
  const keyOf = (secret: string) => createHash('sha256').update(secret).digest();
  const idOf = (secret: string) => createHash('sha256').update(`id:${secret}`).digest('hex').slice(0, 8);
  const keys = new Map([[idOf(current), keyOf(current)], ...(previous ? [[idOf(previous), keyOf(previous)] as const] : [])]);
  const keyId = idOf(current);
  return {
    keyId,
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keys.get(keyId)!, iv);
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', keyId, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed) {
      const [, id, iv, ct, tag] = sealed.split('.');
      const key = keys.get(id ?? '');
      if (!key) throw new Error(`sealed with an unknown key (${id})`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv!, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag!, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct!, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** Serves the app's client ID metadata document, as `GET /oauth/client-metadata.json` does. */
export async function startClientMetadataHost(): Promise<{ origin: string; close(): Promise<void> }> {
  let origin = '';
  const http = createServer((req, res) => {
    if (req.url === '/oauth/client-metadata.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(clientMetadataDocument(origin)));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((r) => http.close(() => r())) };
}

export function oauthDeps(db: Db, appOrigin: string, box: SecretBox = testSecretBox('test-key')): OAuthDeps {
  return { db, box, fetch: loopbackFetch, appOrigin };
}

export async function makeUserWithSession(db: Db, email = `u${randomBytes(4).toString('hex')}@example.com`) {
  const [user] = await db.insert(users).values({ email }).returning();
  const sessionId = randomBytes(16).toString('hex');
  await db.insert(authSessions).values({ id: sessionId, userId: user!.id, expiresAt: new Date(Date.now() + 3_600_000) });
  return { userId: user!.id, sessionId };
}

/** The person's browser at the provider: follows the authorization URL and returns the callback's query. */
export async function approveAt(authorizationUrl: string): Promise<URLSearchParams> {
  const response = await loopbackFetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`the authorize endpoint answered ${response.status}: ${await response.text()}`);
  return new URL(location).searchParams;
}
