import { randomBytes } from 'node:crypto';
import type { FetchLike } from '@modelcontextprotocol/client';
import { z } from 'zod';

import type { Db } from '@/db/connection';
import { findOAuthClient, insertRegisteredClient, saveMetadataClient, type OAuthClientRow } from '@/db/queries/oauth-server';
import { hitRateLimit } from '@/db/queries/rate-limits';

import { clientName, fetchClientDocument, httpsUri, isMetadataDocumentId } from './client-document';
import { OAuthProblem } from './errors';
import { checkRedirectUris } from './redirect-uris';

/**
 * The clients of Switchboard's authorization server: found by `client_id` — a metadata document's
 * URL (fetched, then cached for CLIENT_DOCUMENT_TTL_MS) or an id handed out by registration.
 */

/** How long a fetched metadata document is used before it is fetched again. */
export const CLIENT_DOCUMENT_TTL_MS = 60 * 60_000;
const REGISTERED_PREFIX = 'sbc_';
/** Dynamic registrations per minute from one address: a client registers once per install, not per request. */
export const REGISTRATIONS_PER_MINUTE = 30;

export interface ClientDeps {
  db: Db;
  /** Fetches metadata documents (default: the URL guard, ./client-document.ts). */
  fetch?: FetchLike;
  now?: Date;
  /** A connection (its grant) or one of its tokens was revoked: /mcp closes what it holds open for it (McpEndpoint.clientRevoked). */
  onRevoked?: (grantId: string) => void;
}

/** The client with this id, its metadata document fetched if it is not cached or is stale; invalid_client otherwise. */
export async function resolveClient(deps: ClientDeps, clientId: unknown): Promise<OAuthClientRow> {
  if (typeof clientId !== 'string' || !clientId) throw new OAuthProblem('invalid_request', 'client_id is required.');
  if (clientId.length > 2000) throw new OAuthProblem('invalid_client', 'client_id is longer than 2000 characters.');
  const now = deps.now ?? new Date();
  const known = await findOAuthClient(deps.db, clientId);
  if (!isMetadataDocumentId(clientId)) {
    if (!known || known.kind !== 'registered')
      throw new OAuthProblem('invalid_client', `No client is registered with client_id "${clientId.slice(0, 100)}".`);
    return known;
  }
  if (known?.fetchedAt && now.getTime() - known.fetchedAt.getTime() < CLIENT_DOCUMENT_TTL_MS) return known;
  const doc = await fetchClientDocument(clientId, deps.fetch);
  return saveMetadataClient(deps.db, { clientId, ...doc, fetchedAt: now });
}

const registrationSchema = z.looseObject({
  redirect_uris: z.unknown(),
  client_name: z.string().max(1000).optional(),
  client_uri: z.string().max(2000).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  token_endpoint_auth_method: z.string().optional(),
});

/**
 * Dynamic client registration (RFC 7591) for clients that do not publish a metadata document.
 * Public clients only: the answer says `token_endpoint_auth_method: "none"` whatever was asked
 * (RFC 7591 §3.2.1 lets the server replace values), and no secret is issued.
 */
export async function registerClient(db: Db, body: unknown, from: string | null, now = new Date()) {
  // Registration is anonymous: counted per address (all together when the app cannot tell them apart).
  if ((await hitRateLimit(db, `oauth-register:${from ?? 'unknown'}`, 60_000, now)) > REGISTRATIONS_PER_MINUTE) {
    throw new OAuthProblem(
      'temporarily_unavailable',
      `At most ${REGISTRATIONS_PER_MINUTE} clients may register per minute; try again in a minute.`,
      429,
    );
  }
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthProblem(
      'invalid_client_metadata',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}; send a JSON object with redirect_uris.`,
    );
  }
  const meta = parsed.data;
  const redirectUris = checkRedirectUris(meta.redirect_uris);
  const unsupportedGrant = meta.grant_types?.find((g) => g !== 'authorization_code' && g !== 'refresh_token');
  if (unsupportedGrant)
    throw new OAuthProblem(
      'invalid_client_metadata',
      `grant_types: "${unsupportedGrant}" is not supported (authorization_code and refresh_token are).`,
    );
  const unsupportedResponse = meta.response_types?.find((r) => r !== 'code');
  if (unsupportedResponse)
    throw new OAuthProblem('invalid_client_metadata', `response_types: "${unsupportedResponse}" is not supported (only "code").`);
  const firstHost = new URL(redirectUris[0]!).host || new URL(redirectUris[0]!).protocol;
  const row = await insertRegisteredClient(db, {
    clientId: REGISTERED_PREFIX + randomBytes(16).toString('base64url'),
    name: clientName(meta.client_name, firstHost),
    clientUri: httpsUri(meta.client_uri),
    redirectUris,
  });
  return {
    client_id: row.clientId,
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
    client_name: row.name,
    ...(row.clientUri && { client_uri: row.clientUri }),
    redirect_uris: row.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/**
 * The host a person recognises a client by, from what is verified: a metadata document's own
 * host (it was fetched from there), else where its codes go (the first redirect URI's host). A
 * registered client's `client_uri` is its own claim and is never used for this.
 */
export function clientHost(client: Pick<OAuthClientRow, 'clientId' | 'redirectUris' | 'kind'>): string {
  const where = client.kind === 'metadata_document' ? client.clientId : (client.redirectUris[0] ?? '');
  try {
    const url = new URL(where);
    return url.host || url.protocol.replace(/:$/, '');
  } catch {
    return 'unknown';
  }
}
