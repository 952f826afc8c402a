import {
  computeScopeUnion,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type AuthProvider,
} from '@modelcontextprotocol/client';

import { setWantedScope } from '@/db/queries/oauth';

import { accessToken, credentialForServer } from './credentials';
import type { OAuthDeps, OAuthServerRef } from './types';

/**
 * What a remote connection presents as its `authProvider`: the stored access token of (user,
 * server), refreshed before it expires, and on a 401 one refresh (under the cross-process claim)
 * before giving up. It never starts an interactive sign-in — nobody is at a browser during a
 * call — it throws `SignInRequired`, which the gateway turns into a `needs_sign_in` outcome.
 */

export class SignInRequired extends Error {
  constructor(
    readonly serverId: string,
    readonly serverName: string,
    /** The scopes to ask for (what the server's challenge named, plus what was already granted). */
    readonly scopes: string | undefined,
    readonly reason: 'no_credential' | 'expired' | 'insufficient_scope',
  ) {
    super(`${serverName} needs you to sign in${reason === 'insufficient_scope' ? ' again with more permissions' : ''}.`);
    this.name = 'SignInRequired';
  }
}

export function connectionAuthProvider(deps: OAuthDeps, userId: string, server: OAuthServerRef): AuthProvider {
  let sent: string | undefined;
  return {
    async token() {
      const credential = await credentialForServer(deps, userId, server.url);
      sent = credential ? await accessToken(deps, credential.id) : undefined;
      return sent;
    },
    async onUnauthorized({ response }) {
      const challenge = extractWWWAuthenticateParams(response);
      const credential = await credentialForServer(deps, userId, server.url);
      if (credential && sent !== undefined) {
        const next = await accessToken(deps, credential.id, { rejected: sent });
        if (next && next !== sent) return; // the transport retries once with it
      }
      if (!credential && !(await speaksOAuth(deps, server.url, response, challenge.resourceMetadataUrl))) {
        throw new NotOAuthProtected(server.displayName);
      }
      const scopes = computeScopeUnion(credential?.scope ?? undefined, credential?.wantedScope ?? undefined, challenge.scope);
      throw new SignInRequired(server.id, server.displayName, scopes, credential ? 'expired' : 'no_credential');
    },
  };
}

/** A step-up: the server wants scopes beyond the credential's. Remembered, so the next sign-in asks for them. */
export async function noteInsufficientScope(
  deps: OAuthDeps,
  userId: string,
  server: OAuthServerRef,
  requiredScope: string | undefined,
): Promise<SignInRequired> {
  const credential = await credentialForServer(deps, userId, server.url);
  const scopes = computeScopeUnion(credential?.scope ?? undefined, credential?.wantedScope ?? undefined, requiredScope);
  if (credential && scopes) await setWantedScope(deps.db, credential.id, scopes);
  return new SignInRequired(server.id, server.displayName, scopes, 'insufficient_scope');
}

/** A 401 asks for OAuth when it carries a Bearer challenge or the server publishes protected resource metadata. */
async function speaksOAuth(deps: OAuthDeps, serverUrl: string, response: Response, resourceMetadataUrl: URL | undefined): Promise<boolean> {
  if (/^\s*(bearer|dpop)\b/i.test(response.headers.get('www-authenticate') ?? '')) return true;
  try {
    await discoverOAuthProtectedResourceMetadata(serverUrl, { resourceMetadataUrl }, deps.fetch);
    return true;
  } catch {
    return false;
  }
}

/** A 401 from a server that does not use OAuth: its header credentials are wrong or missing. */
export class NotOAuthProtected extends Error {
  constructor(serverName: string) {
    super(`${serverName} answered HTTP 401 (not signed in) and does not offer OAuth sign-in. Check the server's credentials.`);
    this.name = 'NotOAuthProtected';
  }
}
