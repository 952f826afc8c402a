import type { Db } from '@/db/connection';
import type { SecretBox } from '@/lib/secrets/secret-box';

import type { FetchLike } from '../connection';

export type { SecretBox };

/** What reading, refreshing and revoking stored credentials need. */
export interface OAuthStore {
  db: Db;
  /** Seals tokens, client secrets and code verifiers at rest (lib/secrets). */
  box: SecretBox;
  /**
   * Every outbound OAuth request — metadata, registration, token, revocation — goes through this
   * fetch: the URL-guarded, bounded one in the app. Nothing falls back to the global fetch.
   */
  fetch: FetchLike;
  now?: () => Date;
  /** How long a refresh's whole token request may take (default `REFRESH_REQUEST_TIMEOUT_MS`, credentials.ts). */
  refreshTimeoutMs?: number;
}

/** What the interactive sign-in needs as well. */
export interface OAuthDeps extends OAuthStore {
  /** The app's own origin, e.g. `https://switchboard.example`: redirect URI and client ID metadata URL. */
  appOrigin: string;
  /**
   * The client ID metadata document's URL when it is published somewhere other than the app's
   * own `/oauth/client-metadata.json` (e.g. the fixed identity a conformance authorization
   * server expects).
   */
  clientMetadataUrl?: string;
}

export const CALLBACK_PATH = '/api/oauth/callback';
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

export function redirectUriOf(appOrigin: string): string {
  return new URL(CALLBACK_PATH, appOrigin).href;
}

export function clientMetadataUrlOf(appOrigin: string): string {
  return new URL(CLIENT_METADATA_PATH, appOrigin).href;
}

/** A server's own pre-registered OAuth client (mcp_servers.oauth_client_id and its sealed secret, opened). */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
}

/** What the OAuth code needs to know of a server. */
export interface OAuthServerRef {
  id: string;
  displayName: string;
  url: string;
  oauthClient?: PreRegisteredClient;
}
