import { errorSummary } from '@/lib/log-safe';

/**
 * Errors of the OAuth endpoints in the protocol's own shape (RFC 6749 §5.2, RFC 7591 §3.2.2):
 * `{ error, error_description }`, never the app's `{ error: { code } }`, since OAuth clients parse them.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'unsupported_token_type'
  | 'temporarily_unavailable';

export class OAuthProblem extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
  }
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function oauthJson(body: unknown, status = 200): Response {
  return Response.json(body, { status, headers: NO_STORE });
}

/** An OAuthProblem as its response; anything else is a 500 in the same shape (the detail goes to the log). */
export function oauthErrorResponse(err: unknown): Response {
  if (err instanceof OAuthProblem) return oauthJson({ error: err.error, error_description: err.description }, err.status);
  console.error('[oauth-server] unexpected error:', errorSummary(err));
  return oauthJson({ error: 'server_error', error_description: 'Something went wrong on our side; try again.' }, 500);
}
