import type { BearerFailure } from '@/lib/auth/access-tokens';

/**
 * Switchboard as an OAuth 2.1 protected resource (RFC 9728), as the MCP authorization spec asks
 * of a server: a 401 names the metadata document, and the document names the authorization
 * server. Only personal access tokens are accepted so far; the authorization server itself (the
 * OAuth flow for MCP clients) is the next slice of issue 25, so `authorization_servers` names the
 * app's origin ahead of it — a client that tries OAuth there finds no metadata yet and must be
 * given a token by hand.
 */

/** Where the endpoint is served, on the app's origin. */
export const MCP_PATH = '/mcp';
/** RFC 9728 §3.1: the well-known prefix, then the resource's path. */
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

export function resourceUrl(origin: string): string {
  return `${origin}${MCP_PATH}`;
}

export function resourceMetadataUrl(origin: string): string {
  return `${origin}${RESOURCE_METADATA_PATH}`;
}

/** The protected resource metadata document (RFC 9728 §2). */
export function protectedResourceMetadata(origin: string) {
  return {
    resource: resourceUrl(origin),
    authorization_servers: [origin],
    bearer_methods_supported: ['header'],
    scopes_supported: [],
    resource_name: 'Switchboard',
    resource_documentation: `${origin}/account#tokens-heading`,
  };
}

/**
 * The 401 of `/mcp` (RFC 6750 §3 with RFC 9728 §5.1): `resource_metadata` always; `error` only
 * when a token was sent and failed (a request without one gets no error code, as §3.1 says).
 */
export function unauthorizedResponse(origin: string, reason: BearerFailure, message: string): Response {
  const params = [`resource_metadata="${resourceMetadataUrl(origin)}"`];
  if (reason !== 'missing') params.push('error="invalid_token"', `error_description="${headerSafe(message)}"`);
  return Response.json(
    { error: { code: 'unauthorized:token', message } },
    { status: 401, headers: { 'WWW-Authenticate': `Bearer ${params.join(', ')}`, 'Cache-Control': 'no-store' } },
  );
}

/** RFC 6750 §3: `error_description` is printable ASCII without `"` or backslash (a header cannot carry more anyway). */
function headerSafe(text: string): string {
  return text
    .replace(/…/g, '...')
    .replace(/[‘’]/g, "'")
    .replace(/[^\x20-\x7e]|["\\]/g, '');
}
