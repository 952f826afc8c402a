import {
  computeScopeUnion,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type AuthProvider,
} from '@modelcontextprotocol/client';

import { setWantedScope } from '@/db/queries/oauth';

import { SignInRequired } from '../failures';
import { accessToken, credentialForServer } from './credentials';
import { NotOAuthProtected } from './errors';
import type { OAuthServerRef, OAuthStore } from './types';

/**
 * What a remote connection presents as its `authProvider`: the stored access token of (user,
 * server), refreshed before it expires, and on a 401 one refresh (under the cross-process claim)
 * before giving up. It never starts an interactive sign-in — nobody is at a browser during a
 * call — it throws `SignInRequired` (lib/mcp/failures.ts), which the gateway turns into a
 * `needs_sign_in` outcome.
 */

export function connectionAuthProvider(deps: OAuthStore, userId: string, server: OAuthServerRef): AuthProvider {
  let sent: string | undefined;
  // Read once per connection (the transport asks before every request: the discovery probe, the
  // call, its SSE stream), again only after a 401 says the token it had is no good.
  let read: Promise<string | undefined> | undefined;
  return {
    token() {
      read ??= (async () => {
        const credential = await credentialForServer(deps, userId, server.url);
        sent = credential ? await accessToken(deps, credential.id) : undefined;
        return sent;
      })();
      read.catch(() => (read = undefined)); // a failed read is not kept
      return read;
    },
    async onUnauthorized({ response }) {
      read = undefined;
      const challenge = extractWWWAuthenticateParams(response);
      const credential = await credentialForServer(deps, userId, server.url, { fresh: true });
      if (credential && sent !== undefined) {
        const next = await accessToken(deps, credential.id, { rejected: sent });
        if (next && next !== sent) return; // the transport retries once with it
      }
      // Sent without a token because none was known a moment ago: signed in since (on another instance).
      if (credential && sent === undefined && (await accessToken(deps, credential.id))) return;
      if (!credential && !(await speaksOAuth(deps, server.url, response, challenge.resourceMetadataUrl))) {
        throw new NotOAuthProtected(server.displayName);
      }
      const scopes = computeScopeUnion(credential?.scope ?? undefined, credential?.wantedScope ?? undefined, challenge.scope);
      throw new SignInRequired({
        serverId: server.id,
        serverName: server.displayName,
        ...(scopes && { scopes: scopes.split(' ') }),
        reason: credential ? 'expired' : 'first_use',
      });
    },
  };
}

/** A step-up: the server wants scopes beyond the credential's. Remembered, so the next sign-in asks for them. */
export async function noteInsufficientScope(
  deps: OAuthStore,
  userId: string,
  server: OAuthServerRef,
  requiredScope: string | undefined,
): Promise<{ scopes?: string }> {
  const credential = await credentialForServer(deps, userId, server.url);
  const scopes = computeScopeUnion(credential?.scope ?? undefined, credential?.wantedScope ?? undefined, requiredScope);
  if (credential && scopes) await setWantedScope(deps.db, credential.id, scopes);
  return { scopes };
}

/** A 401 asks for OAuth when it carries a Bearer challenge or the server publishes protected resource metadata. */
async function speaksOAuth(
  deps: OAuthStore,
  serverUrl: string,
  response: Response,
  resourceMetadataUrl: URL | undefined,
): Promise<boolean> {
  if (/^\s*(bearer|dpop)\b/i.test(response.headers.get('www-authenticate') ?? '')) return true;
  try {
    await discoverOAuthProtectedResourceMetadata(serverUrl, { resourceMetadataUrl }, deps.fetch);
    return true;
  } catch {
    return false;
  }
}
