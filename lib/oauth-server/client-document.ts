import type { FetchLike } from '@modelcontextprotocol/client';
import { z } from 'zod';

import { readConfig } from '@/lib/config';
import { boundedFetch } from '@/lib/mcp/bounded-fetch';
import { createGuardedFetch, urlProblem } from '@/lib/mcp/url-guard';

import { OAuthProblem } from './errors';
import { checkRedirectUris } from './redirect-uris';

/**
 * Client ID Metadata Documents (the MCP authorization spec, draft-ietf-oauth-client-id-metadata-document):
 * a client's `client_id` is the https URL of a JSON document describing it. We fetch it through the
 * app's URL guard (no private, loopback or metadata addresses; loopback only with
 * MCP_ALLOW_LOOPBACK=true, for tests), bounded in size and time, and check that it names itself.
 */

export const CLIENT_DOCUMENT_MAX_BYTES = 16 * 1024;
export const CLIENT_DOCUMENT_TIMEOUT_MS = 5_000;
const CLIENT_NAME_MAX = 100;

/** Whether this client_id is a URL (a metadata document) rather than a registered id. */
export function isMetadataDocumentId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/** Why this client_id URL cannot be a metadata document's, or null. */
export function clientIdUrlProblem(clientId: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'it is not a valid URL';
  }
  if (url.pathname === '/' || url.pathname === '')
    return "it must have a path (the document's, e.g. https://client.example/oauth/client.json)";
  if (url.hash) return 'it must not have a fragment';
  return urlProblem(url, { allowLoopback });
}

const documentSchema = z.looseObject({
  client_id: z.string(),
  client_name: z.string().optional(),
  client_uri: z.string().optional(),
  redirect_uris: z.array(z.unknown()),
  token_endpoint_auth_method: z.string().optional(),
});

export interface ClientDocument {
  name: string;
  clientUri: string | null;
  redirectUris: string[];
}

let guarded: { allowLoopback: boolean; fetch: FetchLike } | null = null;

/** The default fetch: the URL guard (loopback only in tests), bounded; one connection pool per process. */
export function documentFetch(): FetchLike {
  const allowLoopback = readConfig().MCP_ALLOW_LOOPBACK;
  if (guarded?.allowLoopback !== allowLoopback) {
    const base = createGuardedFetch({
      allowLoopback,
      connectTimeoutMs: CLIENT_DOCUMENT_TIMEOUT_MS,
      headersTimeoutMs: CLIENT_DOCUMENT_TIMEOUT_MS,
    });
    guarded = { allowLoopback, fetch: boundedFetch(base, { maxBytes: CLIENT_DOCUMENT_MAX_BYTES }) };
  }
  return guarded.fetch;
}

/** Fetches and checks the document at `clientId`; an OAuthProblem (invalid_client) says what was wrong. */
export async function fetchClientDocument(clientId: string, fetchFn: FetchLike = documentFetch()): Promise<ClientDocument> {
  const problem = clientIdUrlProblem(clientId, readConfig().MCP_ALLOW_LOOPBACK);
  if (problem) throw new OAuthProblem('invalid_client', `client_id ${clientId} cannot be used as a client metadata document: ${problem}.`);
  let body: unknown;
  try {
    const res = await fetchFn(clientId, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(CLIENT_DOCUMENT_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`it answered HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    const why = err instanceof Error ? err.message : 'it could not be read';
    throw new OAuthProblem('invalid_client', `The client metadata document at ${clientId} could not be fetched: ${why}.`);
  }
  const parsed = documentSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthProblem(
      'invalid_client',
      `The client metadata document at ${clientId} is not valid: ${issue?.path.join('.') || '(root)'}: ${issue?.message}.`,
    );
  }
  const doc = parsed.data;
  if (doc.client_id !== clientId) {
    throw new OAuthProblem(
      'invalid_client',
      `The client metadata document at ${clientId} names another client_id (${doc.client_id.slice(0, 200)}).`,
    );
  }
  if (doc.token_endpoint_auth_method && doc.token_endpoint_auth_method !== 'none') {
    throw new OAuthProblem(
      'invalid_client',
      `token_endpoint_auth_method "${doc.token_endpoint_auth_method}" is not supported: only public clients ("none", with PKCE).`,
    );
  }
  let redirectUris: string[];
  try {
    redirectUris = checkRedirectUris(doc.redirect_uris);
  } catch (err) {
    throw new OAuthProblem('invalid_client', `The client metadata document at ${clientId}: ${(err as Error).message}`);
  }
  return { name: clientName(doc.client_name, new URL(clientId).host), clientUri: httpsUri(doc.client_uri), redirectUris };
}

/** A name to show: the client's own (one line, bounded), else the host it is known by. */
export function clientName(raw: string | undefined, fallback: string): string {
  const name = (raw ?? '')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim()
    .slice(0, CLIENT_NAME_MAX);
  return name || fallback;
}

/** A client_uri is shown as a link, so only http(s). */
export function httpsUri(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}
