import { OAuthError } from '@modelcontextprotocol/client';

/** A 401 from a server that does not use OAuth: its header credentials are wrong or missing. */
export class NotOAuthProtected extends Error {
  constructor(serverName: string) {
    super(`${serverName} answered HTTP 401 (not signed in) and does not offer OAuth sign-in. Check the server's credentials.`);
    this.name = 'NotOAuthProtected';
  }
}

/** The authorization server could not be reached, or answered with something other than a verdict on the grant. */
export class RefreshFailed extends Error {
  constructor(cause: unknown) {
    // The SDK's messages may quote the server's raw body; only the OAuth error code is kept.
    const code = cause instanceof OAuthError ? ` (${cause.code})` : '';
    super(`refreshing the access token failed${code}`);
    this.name = 'RefreshFailed';
  }
}
