import { createHash } from 'node:crypto';

import type { Db } from '@/db/connection';
import { insertOAuthCode, type OAuthClientRow } from '@/db/queries/oauth-server';
import type { StoredTokenProfile } from '@/db/stored-json';
import { newSecret } from '@/lib/auth/access-tokens';
import { resourceUrl } from '@/lib/gateway/metadata';

import { resolveClient, type ClientDeps } from './clients';
import { OAuthProblem } from './errors';

/**
 * The authorization endpoint (`/oauth/authorize`, OAuth 2.1 §4.1.1): the request is checked in
 * two stages. Until the client and its redirect URI are known to match, a problem is shown to
 * the person and nobody is redirected anywhere (an open redirector otherwise); after that, a
 * problem goes back to the client as `?error=…`. The consent page and the Allow / Deny POST run
 * the same check, so nothing the page carried can be changed on the way.
 */

/** How long a code lives: one exchange, right away. */
export const CODE_TTL_MS = 5 * 60_000;
const CODE_PREFIX = 'sbk_';
const CHALLENGE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'resource',
  'scope',
] as const;
export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

/** The request's parameters, from a query or a body: only the names above, only strings. */
export function authorizeParams(source: URLSearchParams | Record<string, unknown>): AuthorizeParams {
  const out: AuthorizeParams = {};
  for (const name of AUTHORIZE_PARAMS) {
    const value = source instanceof URLSearchParams ? source.get(name) : source[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

export interface CheckedRequest {
  client: OAuthClientRow;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  resource: string;
}

export type AuthorizeCheck =
  { kind: 'show_error'; message: string } | { kind: 'redirect'; url: string } | { kind: 'consent'; request: CheckedRequest };

export async function checkAuthorizeRequest(deps: ClientDeps, params: AuthorizeParams, origin: string): Promise<AuthorizeCheck> {
  let client: OAuthClientRow;
  try {
    client = await resolveClient(deps, params.client_id);
  } catch (err) {
    if (err instanceof OAuthProblem) return { kind: 'show_error', message: err.description };
    throw err;
  }
  const redirectUri = params.redirect_uri;
  if (!redirectUri) return { kind: 'show_error', message: 'The request has no redirect_uri: the client must say where to send you back.' };
  // Exact match only (OAuth 2.1 §4.1.1.3): no prefix, no normalising.
  if (!client.redirectUris.includes(redirectUri)) {
    return {
      kind: 'show_error',
      message:
        `The redirect URI ${redirectUri.slice(0, 300)} is not one that ${client.name} registered, ` +
        'so Switchboard will not send you there.',
    };
  }
  const state = params.state ?? null;
  // An error goes back to the client only when its address is vouched for by its own host (a
  // metadata document): a client that registered itself could name any site, and sending a person
  // there without a click would make this origin an open redirector (RFC 9700 §4.11.2).
  const back = (error: string, description: string): AuthorizeCheck =>
    client.kind === 'metadata_document'
      ? { kind: 'redirect', url: redirectWith(redirectUri, { error, error_description: description, state, iss: origin }) }
      : { kind: 'show_error', message: `${client.name} sent a request Switchboard cannot use: ${description}` };
  if (params.response_type !== 'code') return back('unsupported_response_type', 'response_type must be "code".');
  if (!params.code_challenge) return back('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (params.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be "S256".');
  if (!CHALLENGE_SHAPE.test(params.code_challenge))
    return back('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');
  const resource = resourceUrl(origin);
  // RFC 8707: the one resource this server issues tokens for is its own /mcp.
  if (params.resource !== undefined && params.resource !== resource) return back('invalid_target', `resource must be ${resource}.`);
  return { kind: 'consent', request: { client, redirectUri, codeChallenge: params.code_challenge, state, resource } };
}

/** The redirect URI with these query parameters added (null ones left out), its own query kept. */
export function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * The person allowed the client: a one-time code bound to them, the client, the redirect URI, the
 * PKCE challenge, the resource and the profile they picked; the URL to send the browser to.
 */
export async function issueCode(
  db: Db,
  userId: string,
  request: CheckedRequest,
  profile: StoredTokenProfile,
  origin: string,
  now = new Date(),
): Promise<string> {
  const { token: code, tokenHash } = newSecret(CODE_PREFIX);
  await insertOAuthCode(db, {
    codeHash: tokenHash,
    clientId: request.client.id,
    userId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    profile,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  });
  return redirectWith(request.redirectUri, { code, state: request.state, iss: origin });
}

/** The person said no: back to the client with access_denied. */
export function deniedRedirect(request: CheckedRequest, origin: string): string {
  return redirectWith(request.redirectUri, {
    error: 'access_denied',
    error_description: 'The person denied access.',
    state: request.state,
    iss: origin,
  });
}

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(verifier)) equals the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

/**
 * Allow or Deny from the consent screen (`POST /api/oauth/authorize`, a signed-in session from
 * our own origin): the request is checked again from scratch, then a code (Allow, with the tools
 * the person picked, already resolved against their own tools) or access_denied. The answer is
 * where to send the browser.
 */
export async function decideAuthorization(
  deps: ClientDeps,
  userId: string,
  params: AuthorizeParams,
  origin: string,
  decision: { allow: true; profile: () => Promise<StoredTokenProfile> } | { allow: false },
): Promise<{ redirectTo: string } | { error: string }> {
  const check = await checkAuthorizeRequest(deps, params, origin);
  if (check.kind === 'show_error') return { error: check.message };
  if (check.kind === 'redirect') return { redirectTo: check.url };
  if (!decision.allow) return { redirectTo: deniedRedirect(check.request, origin) };
  return { redirectTo: await issueCode(deps.db, userId, check.request, await decision.profile(), origin, deps.now) };
}
