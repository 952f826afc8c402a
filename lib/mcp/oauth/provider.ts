import { randomUUID } from 'node:crypto';
import {
  resourceUrlFromServerUrl,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';

import { getCredentialByKey, insertFlow, saveAuthorizedTokens, upsertCredentialClient, type OAuthFlowRow } from '@/db/queries/oauth';
import type { StoredOAuthDiscovery } from '@/db/stored-json';
import { hashRandomToken, newRandomToken } from '@/lib/random-token';
import { flowSecretContext } from '@/lib/secrets/seal-contexts';

import { clientRegistrationMetadata } from './client-metadata';
import { openClientInfo, sealClientInfo, tokenValues, usable } from './credentials';
import { clientMetadataUrlOf, redirectUriOf, type OAuthDeps, type OAuthServerRef } from './types';

/** How long a person has to finish signing in at the provider. */
export const FLOW_TTL_MS = 10 * 60_000;

export interface FlowContext {
  userId: string;
  /** The signed-in session that starts (and alone may finish) the flow. */
  sessionId: string;
  server: OAuthServerRef;
  returnTo: string;
  /** On the callback leg: the flow being completed. */
  flow?: OAuthFlowRow;
}

/**
 * The SDK's `OAuthClientProvider`, backed by Postgres, for the two interactive legs: starting an
 * authorization (`auth()` discovers, picks the client, builds the PKCE request; we store the flow)
 * and completing it on the callback (`auth()` checks `iss` and the recorded issuer, redeems the
 * code; we store the tokens). Calls use `connectionAuthProvider` instead, which never redirects.
 *
 * Which client: the server's pre-registered one when it has one; else the client this user
 * already has at that authorization server; else the app's client ID metadata document when the
 * server supports it; else dynamic registration (the SDK calls `saveClientInformation`).
 */
export class PostgresOAuthProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private discovery?: OAuthDiscoveryState;
  private resource: string;
  private verifier?: string;
  private stateValue?: string;
  private client?: StoredOAuthClientInformation;

  constructor(
    private readonly deps: OAuthDeps,
    private readonly ctx: FlowContext,
  ) {
    // Without protected resource metadata the server's URL is the resource (the SDK then sends none).
    this.resource = ctx.flow?.resource ?? resourceUrlFromServerUrl(ctx.server.url).href;
    if (ctx.flow) this.discovery = ctx.flow.discovery;
  }

  get redirectUrl(): string {
    return redirectUriOf(this.deps.appOrigin);
  }

  get clientMetadata(): OAuthClientMetadata {
    return clientRegistrationMetadata(this.deps.appOrigin);
  }

  state(): string {
    this.stateValue = newRandomToken();
    return this.stateValue;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  saveResourceUrl(resource: string): void {
    this.resource = resource;
  }

  async clientInformation(info?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    // Each client is stamped with the issuer it belongs to (SEP-2352: never used at another server).
    const issuer = info ? { issuer: info.issuer } : {};
    const preRegistered = this.ctx.server.oauthClient;
    if (preRegistered) {
      return (this.client ??= {
        client_id: preRegistered.clientId,
        ...(preRegistered.clientSecret ? { client_secret: preRegistered.clientSecret } : { token_endpoint_auth_method: 'none' }),
        ...issuer,
      });
    }
    if (this.client) return this.client;
    if (info && this.resource) {
      const existing = await getCredentialByKey(this.deps.db, this.ctx.userId, info.issuer, this.resource);
      // One that does not open here is passed over: the person gets a client anew.
      const stored = existing && usable(openClientInfo, this.deps.box, existing);
      if (stored) return (this.client = { ...stored, issuer: info.issuer });
    }
    if (this.discovery?.authorizationServerMetadata?.client_id_metadata_document_supported === true) {
      // The SDK only takes https document URLs; loopback test origins are decided here instead.
      return (this.client = {
        client_id: this.deps.clientMetadataUrl ?? clientMetadataUrlOf(this.deps.appOrigin),
        token_endpoint_auth_method: 'none',
        ...issuer,
      });
    }
    return undefined; // → dynamic client registration
  }

  async saveClientInformation(client: StoredOAuthClientInformation, info?: OAuthClientInformationContext): Promise<void> {
    this.client = client;
    const metadata = this.discovery?.authorizationServerMetadata;
    if (!info || !this.resource || !metadata) return;
    const key = { userId: this.ctx.userId, issuer: info.issuer, resource: this.resource };
    const clientInfo = sealClientInfo(this.deps.box, key, client);
    await upsertCredentialClient(this.deps.db, key, { clientInfo, authServer: { v: 1, metadata } });
  }

  /** Interactive legs never present tokens (a new authorization is what was asked for). */
  tokens(): undefined {
    return undefined;
  }

  async saveTokens(tokens: StoredOAuthTokens, info?: OAuthClientInformationContext): Promise<void> {
    const metadata = this.discovery?.authorizationServerMetadata;
    if (!info || !this.resource || !metadata || !this.client) throw new Error('the authorization finished without its discovery state');
    const now = this.deps.now?.() ?? new Date();
    const key = { userId: this.ctx.userId, issuer: info.issuer, resource: this.resource };
    await saveAuthorizedTokens(this.deps.db, key, {
      ...tokenValues(this.deps.box, key, tokens, now),
      clientInfo: sealClientInfo(this.deps.box, key, this.client),
      authServer: { v: 1, metadata },
    });
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.ctx.flow) return this.deps.box.open(this.ctx.flow.codeVerifier, flowSecretContext(this.ctx.flow));
    if (!this.verifier) throw new Error('no PKCE code verifier for this flow');
    return this.verifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const discovery = this.discovery;
    const metadata = discovery?.authorizationServerMetadata;
    if (!discovery || !metadata || !this.stateValue || !this.verifier) throw new Error('the authorization request is incomplete');
    const now = this.deps.now?.() ?? new Date();
    const stored: StoredOAuthDiscovery = {
      v: 1,
      authorizationServerUrl: discovery.authorizationServerUrl,
      ...(discovery.resourceMetadataUrl && { resourceMetadataUrl: discovery.resourceMetadataUrl }),
      ...(discovery.resourceMetadata && { resourceMetadata: discovery.resourceMetadata }),
      authorizationServerMetadata: metadata,
    };
    // The id is chosen here, not by the database: the verifier is sealed for this row before it exists.
    const flow = { id: randomUUID(), userId: this.ctx.userId };
    await insertFlow(this.deps.db, {
      ...flow,
      stateHash: hashRandomToken(this.stateValue),
      authSessionId: this.ctx.sessionId,
      serverId: this.ctx.server.id,
      codeVerifier: this.deps.box.seal(this.verifier, flowSecretContext(flow)),
      issuer: metadata.issuer,
      resource: this.resource ?? this.ctx.server.url,
      redirectUri: this.redirectUrl,
      returnTo: this.ctx.returnTo,
      scope: url.searchParams.get('scope'),
      discovery: stored,
      expiresAt: new Date(now.getTime() + FLOW_TTL_MS),
    });
    this.authorizationUrl = url;
  }
}
