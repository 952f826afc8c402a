import type { ConnectionOAuth } from '../connection';
import { connectionAuthProvider, noteInsufficientScope } from './connection-auth';
import type { OAuthDeps } from './types';

export { clientMetadataDocument } from './client-metadata';
export { completeSignIn, disconnect, forgetServerOAuth, OAuthFlowError, SIGN_IN_FAILURES, startSignIn, type SignInFailure } from './flows';
export { SignInRequired } from './connection-auth';
export type { OAuthDeps, OAuthServerRef, PreRegisteredClient, SecretBox } from './types';

/** What the gateway's remote connections use: the user's credential for each server, and step-up bookkeeping. */
export function gatewayOAuth(deps: OAuthDeps): ConnectionOAuth {
  return {
    authProvider: (server, caller) => connectionAuthProvider(deps, caller.userId, server),
    async stepUp(server, caller, requiredScope) {
      const required = await noteInsufficientScope(deps, caller.userId, server, requiredScope);
      return { scopes: required.scopes };
    },
  };
}
