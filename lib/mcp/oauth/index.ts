import type { AuthProvider } from '@modelcontextprotocol/client';

import type { ConnectionOAuth } from '../connection';
import { connectionAuthProvider, noteInsufficientScope } from './connection-auth';
import type { OAuthStore } from './types';

export { clientMetadataDocument } from './client-metadata';
export { completeSignIn, disconnect, forgetServerOAuth, OAuthFlowError, SIGN_IN_FAILURES, startSignIn, type SignInFailure } from './flows';
export type { OAuthDeps, OAuthServerRef, OAuthStore, PreRegisteredClient } from './types';

/** What the gateway's remote connections use: the user's credential for each server, and step-up bookkeeping. */
export function gatewayOAuth(store: OAuthStore | (() => Promise<OAuthStore>)): ConnectionOAuth {
  let resolved: Promise<OAuthStore> | undefined;
  // The secret box loads asynchronously (a key file on the embedded default): resolved once, on first use.
  const get = () => (resolved ??= typeof store === 'function' ? store() : Promise.resolve(store));
  return {
    authProvider(server, caller) {
      let provider: AuthProvider | undefined;
      const of = async () => (provider ??= connectionAuthProvider(await get(), caller.userId, server));
      return {
        token: async () => (await of()).token(),
        onUnauthorized: async (ctx) => (await of()).onUnauthorized!(ctx),
      };
    },
    stepUp: async (server, caller, requiredScope) => noteInsufficientScope(await get(), caller.userId, server, requiredScope),
  };
}
