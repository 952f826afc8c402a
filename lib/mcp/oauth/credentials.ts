import {
  OAuthError,
  OAuthErrorCode,
  refreshAuthorization,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from '@modelcontextprotocol/client';

import {
  claimRefresh,
  findCredentialsForResources,
  finishRefresh,
  getCredential,
  markCredentialUsed,
  type OAuthCredentialRow,
  type TokenValues,
} from '@/db/queries/oauth';
import { parseStored, sealedOAuthClient, sealedOAuthTokens } from '@/db/stored-json';
import { errorSummary } from '@/lib/log-safe';
import { credentialSecretContext } from '@/lib/secrets/seal-contexts';

import { RefreshFailed } from './errors';
import type { OAuthStore, SecretBox } from './types';

/**
 * Stored credentials and their refresh. One refresh at a time per credential, across every
 * process: a refresh is claimed by compare-and-swap on `version` (with a lease, so a crashed
 * claimant does not block forever); whoever loses waits for the winner and reads the new token.
 * The refresh token a winner used is never sent again — with rotation, that would be a replay
 * and the authorization server would revoke the whole grant.
 */

/** Refresh this long before the access token expires. */
export const REFRESH_SKEW_MS = 60_000;
/**
 * The whole token request of a refresh — connect, headers and body — is given up after this: an
 * authorization server trickling its answer must not hold the claim, a call or the background tick.
 */
export const REFRESH_REQUEST_TIMEOUT_MS = 20_000;
/** Longer than any token request may take (bounded above), so a live claim is never taken over mid-request. */
const REFRESH_LEASE_MS = REFRESH_REQUEST_TIMEOUT_MS + 10_000;
const WAIT_STEP_MS = 100;
/** A call's use of a credential is written at most this often (the background refresh keeps fresh only credentials in use). */
const MARK_USED_EVERY_MS = 60_000;

/** Which credential a sealed value belongs to: its (user, issuer, resource) is bound into it (lib/secrets/seal-contexts.ts). */
export type CredentialKey = Pick<OAuthCredentialRow, 'userId' | 'issuer' | 'resource'>;
type StoredCredential = CredentialKey & Pick<OAuthCredentialRow, 'id' | 'tokens' | 'clientInfo'>;

/** The stored tokens, opened and parsed (null when there are none). Throws when they do not open here or are not tokens. */
export function openTokens(box: SecretBox, row: StoredCredential): OAuthTokens | null {
  if (!row.tokens) return null;
  const json: unknown = JSON.parse(box.open(row.tokens, credentialSecretContext('tokens', row)));
  return parseStored(sealedOAuthTokens, json, 'oauth_credentials.tokens', row.id);
}

/** The stored client information, opened and parsed (null when there is none). Throws when it does not open here. */
export function openClientInfo(box: SecretBox, row: StoredCredential): OAuthClientInformationMixed | null {
  if (!row.clientInfo) return null;
  const json: unknown = JSON.parse(box.open(row.clientInfo, credentialSecretContext('client_info', row)));
  return parseStored(sealedOAuthClient, json, 'oauth_credentials.client_info', row.id);
}

/**
 * What a call may use of a stored credential: as `open`, but a value that does not open here —
 * sealed under a key no longer held, or copied from another row — counts as none (logged, never
 * thrown). Such a credential is dead, as a revoked grant is: the call asks the person to sign in
 * again, and the sign-in replaces it.
 */
export function usable<T>(open: (box: SecretBox, row: StoredCredential) => T | null, box: SecretBox, row: StoredCredential): T | null {
  try {
    return open(box, row);
  } catch (err) {
    console.error(`[oauth] credential ${row.id} cannot be opened, a new sign-in replaces it:`, errorSummary(err));
    return null;
  }
}

/** Client information sealed for this credential. */
export function sealClientInfo(box: SecretBox, key: CredentialKey, client: OAuthClientInformationMixed): string {
  return box.seal(JSON.stringify(client), credentialSecretContext('client_info', key));
}

/** New tokens, sealed for this credential, with their expiry and scope. */
export function tokenValues(box: SecretBox, key: CredentialKey, tokens: OAuthTokens, now: Date): TokenValues {
  const expiresIn = typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? tokens.expires_in : null;
  return {
    tokens: box.seal(JSON.stringify(tokens), credentialSecretContext('tokens', key)),
    expiresAt: expiresIn === null ? null : new Date(now.getTime() + expiresIn * 1000),
    scope: tokens.scope ?? null,
    refreshable: typeof tokens.refresh_token === 'string' && tokens.refresh_token !== '',
  };
}

/**
 * Resource indicators a credential for this server URL may carry: the URL itself and each of its
 * path prefixes down to the origin (RFC 9728 lets a server name a broader resource, same origin).
 */
export function resourceCandidates(serverUrl: string): string[] {
  const url = new URL(serverUrl);
  url.hash = '';
  const out = new Set<string>([url.href, url.origin, `${url.origin}/`]);
  url.search = '';
  const segments = url.pathname.split('/').filter(Boolean);
  for (let i = 1; i <= segments.length; i++) {
    const path = `${url.origin}/${segments.slice(0, i).join('/')}`;
    out.add(path);
    out.add(`${path}/`);
  }
  return [...out];
}

export async function credentialForServer(
  deps: OAuthStore,
  userId: string,
  serverUrl: string,
  opts: { fresh?: boolean } = {},
): Promise<OAuthCredentialRow | null> {
  const missing = missingCredentials(deps);
  const key = `${userId}\n${serverUrl}`;
  const now = Date.now();
  if (!opts.fresh && (missing.get(key) ?? 0) > now) return null;
  const rows = await findCredentialsForResources(deps.db, userId, resourceCandidates(serverUrl));
  const row = rows[0] ?? null;
  if (row) missing.delete(key);
  else {
    if (missing.size >= MAX_MISSING) missing.clear();
    missing.set(key, now + NO_CREDENTIAL_MEMO_MS);
  }
  return row;
}

/**
 * That a user has no credential for a server is remembered this long, so a server without OAuth
 * (most are) costs no read per call. A sign-in completed in this process forgets it at once
 * (`forgetMissingCredentials`); one completed on another instance is found by the 401 the call
 * then gets, which reads afresh (lib/mcp/oauth/connection-auth.ts).
 */
export const NO_CREDENTIAL_MEMO_MS = 10_000;
const MAX_MISSING = 10_000;
/** Per database (one per runtime), so every store of the process shares it. */
const missingByDb = new WeakMap<object, Map<string, number>>();

function missingCredentials(deps: OAuthStore): Map<string, number> {
  let map = missingByDb.get(deps.db);
  if (!map) missingByDb.set(deps.db, (map = new Map()));
  return map;
}

/** After a sign-in: the user's credentials are read again on the next call. */
export function forgetMissingCredentials(deps: OAuthStore, userId: string): void {
  const missing = missingCredentials(deps);
  for (const key of missing.keys()) if (key.startsWith(`${userId}\n`)) missing.delete(key);
}

/** Refreshes in flight in this process (per deps: one per runtime), by credential: concurrent callers share one. */
const inFlightByDeps = new WeakMap<OAuthStore, Map<string, Promise<string | undefined>>>();

export interface AccessTokenOptions {
  /** The server refused this token: refresh even though it has not expired (unless it changed meanwhile). */
  rejected?: string;
}

/**
 * A usable access token for the credential, refreshed first when it is about to expire (or was
 * refused). `undefined` when there is none and only a new sign-in can help. Throws when the
 * authorization server could not be reached (the credential is kept).
 */
export async function accessToken(deps: OAuthStore, credentialId: string, opts: AccessTokenOptions = {}): Promise<string | undefined> {
  const now = deps.now?.() ?? new Date();
  const row = await getCredential(deps.db, credentialId);
  if (!row) return undefined;
  const tokens = usable(openTokens, deps.box, row);
  if (!tokens) return undefined;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= MARK_USED_EVERY_MS) {
    await markCredentialUsed(deps.db, row.id, now, MARK_USED_EVERY_MS);
  }
  const fresh = row.expiresAt === null || row.expiresAt.getTime() - now.getTime() > REFRESH_SKEW_MS;
  if (opts.rejected === undefined ? fresh : tokens.access_token !== opts.rejected) return tokens.access_token;
  if (!tokens.refresh_token) {
    const usable = opts.rejected === undefined && row.expiresAt !== null && row.expiresAt > now;
    return usable ? tokens.access_token : undefined;
  }
  const refresh = singleFlight(deps, row);
  if (opts.rejected !== undefined || !row.expiresAt || row.expiresAt <= now) return refresh;
  // Refreshing early failed, but the token has not expired yet: it serves meanwhile.
  return refresh.catch((error: unknown) => {
    if (error instanceof RefreshFailed) return tokens.access_token;
    throw error;
  });
}

/** What refreshing one credential ahead of its expiry came to (`refreshAhead`). */
export type RefreshAheadOutcome = 'refreshed' | 'fresh' | 'no_refresh_token' | 'needs_sign_in';

/**
 * Refreshes the credential now when its access token expires within `aheadMs` — the background
 * refresh's entry, through the same single flight as a call's: one refresh per credential in this
 * process (a call arriving meanwhile shares it), claimed by `version` across processes (whoever
 * loses waits and reads the winner's token). A grant the authorization server refuses is cleared,
 * as on use, so the person's next call asks them to sign in. Throws `RefreshFailed` when the
 * authorization server could not be reached (the credential is kept, tried again next time).
 */
export async function refreshAhead(deps: OAuthStore, credentialId: string, aheadMs: number): Promise<RefreshAheadOutcome> {
  const now = deps.now?.() ?? new Date();
  const row = await getCredential(deps.db, credentialId);
  const tokens = row && usable(openTokens, deps.box, row);
  if (!row || !tokens) return 'needs_sign_in';
  if (row.expiresAt === null || row.expiresAt.getTime() - now.getTime() > aheadMs) return 'fresh';
  if (!tokens.refresh_token) return 'no_refresh_token';
  const token = await singleFlight(deps, row);
  if (token === undefined) return 'needs_sign_in';
  return token === tokens.access_token ? 'fresh' : 'refreshed';
}

/** The refresh of this credential in flight in this process, or a new one. */
function singleFlight(deps: OAuthStore, row: OAuthCredentialRow): Promise<string | undefined> {
  let inFlight = inFlightByDeps.get(deps);
  if (!inFlight) inFlightByDeps.set(deps, (inFlight = new Map()));
  const running = inFlight.get(row.id);
  if (running) return running;
  const refresh = refreshOnce(deps, row).finally(() => inFlight.delete(row.id));
  inFlight.set(row.id, refresh);
  return refresh;
}

async function refreshOnce(deps: OAuthStore, read: OAuthCredentialRow): Promise<string | undefined> {
  const now = deps.now?.() ?? new Date();
  const claimed = await claimRefresh(deps.db, read.id, read.version, REFRESH_LEASE_MS, now);
  if (!claimed) return waitForOtherRefresh(deps, read);

  const tokens = usable(openTokens, deps.box, claimed);
  const client = usable(openClientInfo, deps.box, claimed);
  if (!tokens?.refresh_token || !client) {
    await finishRefresh(deps.db, claimed.id, claimed.version, null);
    return undefined;
  }
  let next: OAuthTokens;
  const deadline = AbortSignal.timeout(deps.refreshTimeoutMs ?? REFRESH_REQUEST_TIMEOUT_MS);
  try {
    const request = refreshAuthorization(claimed.authServer.metadata.issuer, {
      metadata: claimed.authServer.metadata,
      clientInformation: client,
      refreshToken: tokens.refresh_token,
      resource: claimed.resource,
      fetchFn: (url, init) => deps.fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline }),
    });
    next = await untilAborted(request, deadline);
  } catch (error) {
    if (isDeadGrant(error)) {
      // The grant is gone (revoked, expired, or a replay was detected): only a new sign-in helps.
      await finishRefresh(deps.db, claimed.id, claimed.version, {
        tokens: null,
        expiresAt: null,
        scope: claimed.scope,
        refreshable: false,
      });
      return undefined;
    }
    await finishRefresh(deps.db, claimed.id, claimed.version, null);
    throw new RefreshFailed(error);
  }
  const saved = await finishRefresh(deps.db, claimed.id, claimed.version, tokenValues(deps.box, claimed, next, deps.now?.() ?? new Date()));
  // Lost the claim (a new sign-in replaced the row meanwhile): the row's tokens win.
  if (!saved) return waitForOtherRefresh(deps, claimed);
  return next.access_token;
}

/** The promise, or its rejection once `signal` aborts — even if what it awaits ignores the signal (a body being read). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('token request timed out'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Another process holds the claim: wait until the row changes, then use what it wrote. */
async function waitForOtherRefresh(deps: OAuthStore, read: OAuthCredentialRow): Promise<string | undefined> {
  const deadline = Date.now() + REFRESH_LEASE_MS + 2_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
    const row = await getCredential(deps.db, read.id);
    if (!row) return undefined;
    if (row.refreshingUntil && row.refreshingUntil.getTime() > Date.now()) continue;
    const tokens = usable(openTokens, deps.box, row);
    if (!tokens) return undefined;
    const before = usable(openTokens, deps.box, read);
    if (tokens.access_token !== before?.access_token) return tokens.access_token;
    // The other claimant gave up without new tokens. It may have sent the refresh token before it
    // failed, so this process does not send it again now; the current token serves while it lasts.
    if (row.expiresAt && row.expiresAt.getTime() > Date.now()) return tokens.access_token;
    throw new RefreshFailed(new Error('another refresh of this credential failed'));
  }
  throw new RefreshFailed(new Error('another refresh of this credential did not finish in time'));
}

function isDeadGrant(error: unknown): boolean {
  return (
    error instanceof OAuthError &&
    [OAuthErrorCode.InvalidGrant, OAuthErrorCode.InvalidClient, OAuthErrorCode.UnauthorizedClient].includes(error.code as OAuthErrorCode)
  );
}
