import { insertGrant, revokeGrant, rotateRefreshToken, takeOAuthCode, type NewTokenPair } from '@/db/queries/oauth-server';
import { hashAccessToken, newSecret, OAUTH_ACCESS_TOKEN_PREFIX, OAUTH_REFRESH_TOKEN_PREFIX } from '@/lib/auth/access-tokens';
import { resourceUrl } from '@/lib/gateway/metadata';

import { pkceMatches } from './authorize';
import { resolveClient, type ClientDeps } from './clients';
import { OAuthProblem } from './errors';

/**
 * The token endpoint (`/oauth/token`, OAuth 2.1 §3.2): `authorization_code` with the PKCE
 * verifier, and `refresh_token` with rotation — each refresh token works once, and one presented
 * again revokes the whole grant (every token of that connection), since only a stolen copy is
 * ever presented twice. Access tokens are short-lived; all are stored hashed.
 */

export const ACCESS_TOKEN_TTL_MS = 15 * 60_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60_000;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

function newPair(now: Date): { pair: NewTokenPair; response: TokenResponse } {
  const access = newSecret(OAUTH_ACCESS_TOKEN_PREFIX);
  const refresh = newSecret(OAUTH_REFRESH_TOKEN_PREFIX);
  return {
    pair: {
      accessHash: access.tokenHash,
      accessExpiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_MS),
      refreshHash: refresh.tokenHash,
      refreshExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
    },
    response: { access_token: access.token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_MS / 1000, refresh_token: refresh.token },
  };
}

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthProblem('invalid_request', `${name} is required.`);
  return value;
}

/** One token request (the form body already parsed); an OAuthProblem says what was wrong. */
export async function tokenRequest(deps: ClientDeps, form: URLSearchParams, origin: string): Promise<TokenResponse> {
  const grantType = form.get('grant_type');
  if (grantType === 'authorization_code') return exchangeCode(deps, form, origin);
  if (grantType === 'refresh_token') return refresh(deps, form, origin);
  throw new OAuthProblem(
    'unsupported_grant_type',
    `grant_type must be "authorization_code" or "refresh_token"${grantType ? ` (got "${grantType.slice(0, 50)}")` : ''}.`,
  );
}

function checkResource(form: URLSearchParams, origin: string): void {
  const resource = form.get('resource');
  if (resource !== null && resource !== resourceUrl(origin))
    throw new OAuthProblem('invalid_target', `resource must be ${resourceUrl(origin)}.`);
}

async function exchangeCode(deps: ClientDeps, form: URLSearchParams, origin: string): Promise<TokenResponse> {
  const now = deps.now ?? new Date();
  const code = required(form, 'code');
  const verifier = required(form, 'code_verifier');
  const redirectUri = required(form, 'redirect_uri');
  checkResource(form, origin);
  const client = await resolveClient(deps, form.get('client_id'));
  const taken = await takeOAuthCode(deps.db, hashAccessToken(code), now);
  if (taken.kind === 'used') {
    // OAuth 2.1 §4.1.3: a code used twice — what the first use issued is revoked too.
    if (taken.grantId && (await revokeGrant(deps.db, taken.grantId, now))) deps.onRevoked?.(taken.grantId);
    throw new OAuthProblem('invalid_grant', 'This authorization code was already used; the tokens it gave are revoked.');
  }
  if (taken.kind === 'unknown') throw new OAuthProblem('invalid_grant', 'This authorization code is not known.');
  const row = taken.code;
  if (row.clientId !== client.id) throw new OAuthProblem('invalid_grant', 'This authorization code was issued to another client.');
  if (row.expiresAt.getTime() <= now.getTime())
    throw new OAuthProblem('invalid_grant', 'This authorization code has expired: authorize again.');
  if (row.redirectUri !== redirectUri) throw new OAuthProblem('invalid_grant', 'redirect_uri is not the one the code was issued for.');
  if (!pkceMatches(verifier, row.codeChallenge))
    throw new OAuthProblem('invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256).');
  const { pair, response } = newPair(now);
  await insertGrant(
    deps.db,
    { codeId: row.id, userId: row.userId, name: client.name, oauthClientId: client.id, profile: row.profile },
    pair,
  );
  return response;
}

async function refresh(deps: ClientDeps, form: URLSearchParams, origin: string): Promise<TokenResponse> {
  const now = deps.now ?? new Date();
  const token = required(form, 'refresh_token');
  checkResource(form, origin);
  const client = await resolveClient(deps, form.get('client_id'));
  const { pair, response } = newPair(now);
  const outcome = await rotateRefreshToken(deps.db, hashAccessToken(token), client.id, pair, now);
  if (outcome.kind === 'rotated') return response;
  if (outcome.kind === 'reused') {
    deps.onRevoked?.(outcome.grantId);
    throw new OAuthProblem('invalid_grant', 'This refresh token was already used: the connection is revoked. Authorize the client again.');
  }
  const why = {
    unknown: 'is not known',
    expired: 'has expired',
    revoked: 'belongs to a revoked connection',
    wrong_client: 'was issued to another client',
  }[outcome.why];
  throw new OAuthProblem('invalid_grant', `This refresh token ${why}.`);
}
