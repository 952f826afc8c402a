import {
  auth,
  AuthorizationServerMismatchError,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  IssuerMismatchError,
  OAuthError,
  validateAuthorizationResponseIssuer,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from '@modelcontextprotocol/client';

import {
  consumeFlow,
  deleteCredential,
  deleteExpiredFlows,
  deleteFlowsForServer,
  findCredentialsForResources,
  findFlowByStateHash,
  type OAuthCredentialRow,
} from '@/db/queries/oauth';
import { hashRandomToken } from '@/lib/random-token';

import type { FetchLike } from '../connection';
import { quote } from '../failures';
import { credentialForServer, forgetMissingCredentials, openClientInfo, openTokens, resourceCandidates } from './credentials';
import { PostgresOAuthProvider } from './provider';
import type { OAuthDeps, OAuthServerRef, SecretBox } from './types';

/**
 * The interactive sign-in: start (discover, choose the client, store the flow, hand back the
 * provider's URL), complete (the callback: a single-use `state` of this user's session, `iss`,
 * the code redeemed), disconnect (revoke at the provider, then forget), and forgetting a server's
 * credentials when its URL changes.
 */

export const SIGN_IN_FAILURES = [
  'missing_state',
  'unknown_state',
  'not_yours',
  'used',
  'expired',
  'server_gone',
  'wrong_issuer',
  'denied',
  'failed',
] as const;
export type SignInFailure = (typeof SIGN_IN_FAILURES)[number];

export class OAuthFlowError extends Error {
  constructor(
    readonly code: SignInFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OAuthFlowError';
  }
}

export interface StartInput {
  userId: string;
  sessionId: string;
  server: OAuthServerRef;
  /** A same-origin path the callback returns to. */
  returnTo: string;
}

export async function startSignIn(deps: OAuthDeps, input: StartInput): Promise<{ authorizationUrl: string }> {
  const { server } = input;
  await deleteExpiredFlows(deps.db, deps.now?.() ?? new Date()); // abandoned sign-ins go
  const challenge = await probeChallenge(deps, server.url);
  const credential = await credentialForServer(deps, input.userId, server.url);
  // The server's challenge first, then what was granted and what a step-up asked for since.
  const scope = computeScopeUnion(challenge.scope, credential?.scope ?? undefined, credential?.wantedScope ?? undefined);
  const provider = new PostgresOAuthProvider(deps, input);
  try {
    const result = await auth(provider, {
      serverUrl: server.url,
      scope,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      fetchFn: deps.fetch,
      forceReauthorization: true,
    });
    if (result !== 'REDIRECT' || !provider.authorizationUrl) throw new Error('the authorization server did not ask for a sign-in');
  } catch (error) {
    throw new OAuthFlowError('failed', `Could not start signing in to ${server.displayName}: ${reason(error)}.`);
  }
  return { authorizationUrl: provider.authorizationUrl.href };
}

export interface CompleteInput {
  userId: string;
  sessionId: string;
  /** The callback's query: `code`, `state`, `iss`, or `error`. */
  params: URLSearchParams;
  /** The user's server by id, or null when it is gone. */
  loadServer: (serverId: string) => Promise<OAuthServerRef | null>;
}

export interface Completed {
  serverId: string;
  returnTo: string;
}

export async function completeSignIn(deps: OAuthDeps, input: CompleteInput): Promise<Completed> {
  const state = input.params.get('state');
  if (!state)
    throw new OAuthFlowError('missing_state', 'The sign-in answer carried no state, so it cannot be matched to a sign-in you started.');
  const found = await findFlowByStateHash(deps.db, hashRandomToken(state));
  if (!found) throw new OAuthFlowError('unknown_state', 'This sign-in answer does not match any sign-in in progress.');
  if (found.userId !== input.userId || found.authSessionId !== input.sessionId) {
    throw new OAuthFlowError('not_yours', 'This sign-in was started in another session: start it again from here.');
  }
  const now = deps.now?.() ?? new Date();
  if (found.usedAt) throw new OAuthFlowError('used', 'This sign-in answer was already used.');
  if (found.expiresAt <= now) throw new OAuthFlowError('expired', 'This sign-in took too long and expired: start it again.');
  const flow = await consumeFlow(deps.db, found.id, now);
  if (!flow) throw new OAuthFlowError('used', 'This sign-in answer was already used.');
  const done = { serverId: flow.serverId, returnTo: flow.returnTo };

  const server = await input.loadServer(flow.serverId);
  if (!server || !resourceCandidates(server.url).includes(flow.resource)) {
    throw new OAuthFlowError('server_gone', 'The server was removed or its address changed while you were signing in.');
  }
  const metadata = flow.discovery.authorizationServerMetadata;
  const iss = input.params.get('iss') ?? undefined;
  const code = input.params.get('code');
  if (!code) {
    checkIssuer(iss, metadata.issuer, metadata.authorization_response_iss_parameter_supported === true);
    const error = input.params.get('error') ?? 'no code';
    throw new OAuthFlowError('denied', `${server.displayName}'s sign-in did not complete (${quote(error)}).`);
  }
  const provider = new PostgresOAuthProvider(deps, {
    userId: input.userId,
    sessionId: input.sessionId,
    server,
    returnTo: flow.returnTo,
    flow,
  });
  try {
    const result = await auth(provider, { serverUrl: server.url, authorizationCode: code, iss, fetchFn: deps.fetch });
    if (result !== 'AUTHORIZED') throw new Error('the code was not accepted');
  } catch (error) {
    if (error instanceof IssuerMismatchError || error instanceof AuthorizationServerMismatchError) throw wrongIssuer();
    throw new OAuthFlowError('failed', `Could not finish signing in to ${server.displayName}: ${reason(error)}.`);
  }
  forgetMissingCredentials(deps, input.userId);
  return done;
}

function checkIssuer(iss: string | undefined, expected: string, supported: boolean): void {
  try {
    validateAuthorizationResponseIssuer({ iss, expectedIssuer: expected, issParameterSupported: supported });
  } catch {
    throw wrongIssuer();
  }
}

function wrongIssuer(): OAuthFlowError {
  return new OAuthFlowError(
    'wrong_issuer',
    'The sign-in answer came from a different authorization server than the one asked (RFC 9207): it was refused.',
  );
}

/** Revokes the user's credential for this server at the provider when it offers revocation (RFC 7009), then forgets it. */
export async function disconnect(
  deps: OAuthDeps,
  userId: string,
  server: OAuthServerRef,
): Promise<{ revoked: boolean; hadCredential: boolean }> {
  await deleteFlowsForServer(deps.db, userId, server.id);
  const credential = await credentialForServer(deps, userId, server.url);
  if (!credential) return { revoked: false, hadCredential: false };
  const revoked = await revokeCredential(deps, credential);
  await deleteCredential(deps.db, credential.id);
  return { revoked, hadCredential: true };
}

/**
 * Revokes the credential's tokens at its provider when the metadata has a `revocation_endpoint`
 * (RFC 7009). Best effort: false when there is no endpoint, nothing to revoke, or any refusal.
 */
async function revokeCredential(deps: Pick<OAuthDeps, 'box' | 'fetch'>, credential: OAuthCredentialRow): Promise<boolean> {
  // OIDC discovery documents may carry it too, but their type does not name it.
  const metadata = credential.authServer.metadata;
  const endpoint =
    'revocation_endpoint' in metadata && typeof metadata.revocation_endpoint === 'string' ? metadata.revocation_endpoint : undefined;
  if (!endpoint) return false;
  let tokens: OAuthTokens | null;
  let client: OAuthClientInformationMixed | null;
  try {
    tokens = openTokens(deps.box, credential);
    client = openClientInfo(deps.box, credential);
  } catch {
    return false; // sealed under a key this process no longer has: it can only be forgotten
  }
  if (!tokens || !client) return false;
  // The refresh token first: revoking it ends the grant (and, at most servers, its access tokens).
  const targets = [
    ...(tokens.refresh_token ? [{ token: tokens.refresh_token, hint: 'refresh_token' }] : []),
    { token: tokens.access_token, hint: 'access_token' },
  ];
  let revoked = true;
  for (const t of targets) revoked = (await revoke(deps, endpoint, client, t.token, t.hint)) && revoked;
  return revoked;
}

async function revoke(
  deps: Pick<OAuthDeps, 'fetch'>,
  endpoint: string,
  client: { client_id: string; client_secret?: string },
  token: string,
  hint: string,
): Promise<boolean> {
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
  if (client.client_secret) {
    headers.set('authorization', `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`)}`);
  } else {
    body.set('client_id', client.client_id);
  }
  try {
    const response = await deps.fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
    await response.body?.cancel().catch(() => {});
    return response.ok;
  } catch {
    return false; // forgetting the credential still goes ahead
  }
}

export interface ForgetOptions {
  /**
   * The URLs of the user's other servers. A credential one of them finds (the same resource, or
   * a path prefix of its URL — RFC 9728 lets a resource be as broad as the origin) is theirs
   * too, and stays.
   */
  otherServerUrls: string[];
  /** To revoke what is forgotten at the provider (best effort); without them it is only deleted. */
  box?: SecretBox;
  fetch?: FetchLike;
}

/**
 * A server's URL changed (or it is being removed): its sign-ins in progress go, and so do the
 * credentials only it used, revoked at the provider first where it supports revocation. A
 * credential another of the user's servers also finds is left to that server.
 */
export async function forgetServerOAuth(
  deps: Pick<OAuthDeps, 'db'>,
  userId: string,
  serverId: string,
  oldUrl: string,
  opts: ForgetOptions,
): Promise<{ forgotten: number; revoked: number; kept: number }> {
  await deleteFlowsForServer(deps.db, userId, serverId);
  const shared = new Set(opts.otherServerUrls.flatMap((url) => safeCandidates(url)));
  const found = await findCredentialsForResources(deps.db, userId, resourceCandidates(oldUrl));
  const own = found.filter((c) => !shared.has(c.resource));
  let revoked = 0;
  for (const credential of own) {
    if (opts.box && opts.fetch && (await revokeCredential({ box: opts.box, fetch: opts.fetch }, credential))) revoked++;
    await deleteCredential(deps.db, credential.id);
  }
  return { forgotten: own.length, revoked, kept: found.length - own.length };
}

function safeCandidates(url: string): string[] {
  try {
    return resourceCandidates(url);
  } catch {
    return []; // a stored URL that no longer parses finds nothing
  }
}

/**
 * What the server says when asked without a token: its `WWW-Authenticate` challenge names the
 * scopes to ask for and where its protected resource metadata is. Best effort.
 */
async function probeChallenge(deps: OAuthDeps, serverUrl: string): Promise<{ scope?: string; resourceMetadataUrl?: URL }> {
  try {
    const response = await deps.fetch(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel().catch(() => {});
    if (response.status !== 401) return {};
    const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
    return { scope, resourceMetadataUrl };
  } catch {
    return {};
  }
}

/** Why, in words, without tokens or raw bodies (the SDK quotes response bodies in some messages). */
function reason(error: unknown): string {
  if (error instanceof OAuthError) return `the authorization server answered "${quote(error.code)}"`;
  if (error instanceof Error) return quote(error.message.split(/Raw body:|\n/)[0]!);
  return 'an unexpected error';
}
