import { resourceUrl } from '@/lib/gateway/metadata';

/**
 * Switchboard as the OAuth 2.1 authorization server of its own `/mcp` (issue 25). The issuer is
 * the app's origin; the endpoints sit under `/oauth/`. Public clients only: PKCE with S256, no
 * client secret, as the MCP authorization spec asks of clients that run on people's machines.
 */

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
} as const;

/** RFC 8414 §3: the metadata document's path for an issuer without a path. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** The authorization server metadata (RFC 8414 §2, with the MCP spec's Client ID Metadata Document flag). */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${origin}${OAUTH_PATHS.token}`,
    registration_endpoint: `${origin}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${origin}${OAUTH_PATHS.revoke}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [],
    client_id_metadata_document_supported: true,
    // RFC 9207: the redirect back carries `iss`, so a client talking to several servers can tell which answered.
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${origin}/account#connected-clients-heading`,
    /** Not standard: what the tokens are good for, for a person reading the document. */
    resource: resourceUrl(origin),
  };
}
