import type { OAuthClientMetadata } from '@modelcontextprotocol/client';

import { clientMetadataUrlOf, redirectUriOf } from './types';

/**
 * The client ID metadata document the app serves at `/oauth/client-metadata.json`: when an
 * authorization server advertises `client_id_metadata_document_supported`, the URL of this
 * document is the client_id, and no registration is needed.
 */
export function clientMetadataDocument(appOrigin: string): OAuthClientMetadata & { client_id: string } {
  return { client_id: clientMetadataUrlOf(appOrigin), ...clientRegistrationMetadata(appOrigin) };
}

/** The same metadata without a client_id: what dynamic registration sends. */
export function clientRegistrationMetadata(appOrigin: string): OAuthClientMetadata {
  return {
    client_name: 'Switchboard',
    client_uri: new URL('/', appOrigin).href,
    redirect_uris: [redirectUriOf(appOrigin)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}
