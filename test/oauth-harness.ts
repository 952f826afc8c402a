import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Db } from '@/db/connection';
import { authSessions, users } from '@/db/schema';
import { clientMetadataDocument } from '@/lib/mcp/oauth/client-metadata';
import type { OAuthDeps } from '@/lib/mcp/oauth/types';
import { createSecretBox, type SecretBox } from '@/lib/secrets/secret-box';

import { loopbackFetch } from './loopback-fetch';

/** The app's SecretBox (lib/secrets) with keys derived from names: `previous` still opens what it sealed. */
export function testSecretBox(current: string, previous?: string): SecretBox {
  const key = (name: string) => createHash('sha256').update(name).digest();
  return createSecretBox(key(current), previous ? [key(previous)] : []);
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
