import type { AuthorizationServerMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/client';
import { OAuthClientInformationSchema, OAuthTokensSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';

import { TASK_SUPPORT, TRUST_LEVELS } from '../vocabulary';
import { jsonObject } from './common';
import { storedAnnotations } from './tool-calls';

/**
 * The JSON columns of MCP servers and their sign-ins: OAuth discovery, reviewed tools, sealed
 * headers and tokens once opened, the tool catalog. See db/stored-json.ts for the rules every
 * shape follows.
 */

// ── oauth_credentials.auth_server and oauth_flows.discovery (lib/mcp/oauth) ───────────────────
const authServerShape = z.looseObject({
  issuer: z.string().min(1),
  authorization_endpoint: z.string().min(1),
  token_endpoint: z.string().min(1),
  response_types_supported: z.array(z.string()),
});
/** An authorization server's metadata (RFC 8414) as discovered: its words, extra fields kept. */
const authServerMetadata = z.custom<AuthorizationServerMetadata>((value) => authServerShape.safeParse(value).success, {
  error: 'must be authorization server metadata with issuer, authorization_endpoint and token_endpoint',
});
const resourceMetadata = z.custom<OAuthProtectedResourceMetadata>(
  (value) => z.looseObject({ resource: z.string().min(1) }).safeParse(value).success,
  { error: 'must be protected resource metadata with a resource' },
);
/** What refreshing and revoking a credential need to know about its authorization server. */
export const storedAuthServer = z.object({ v: z.literal(1), metadata: authServerMetadata });
export type StoredAuthServer = z.infer<typeof storedAuthServer>;
/** The discovery an authorization request was started with; the callback leg is checked against it. */
export const storedOAuthDiscovery = z.object({
  v: z.literal(1),
  authorizationServerUrl: z.string().min(1),
  resourceMetadataUrl: z.string().optional(),
  resourceMetadata: resourceMetadata.optional(),
  authorizationServerMetadata: authServerMetadata,
});
export type StoredOAuthDiscovery = z.infer<typeof storedOAuthDiscovery>;

// ── mcp_servers.reviewed_tools: what the person saw and approved of a server's tools ──────
/**
 * Tool name → the fingerprint (lib/mcp/catalog.ts) it had when the person enabled the server.
 * Version 2: fingerprints cover the tool's title. `beforeTitles`: approvals of version 1, whose
 * fingerprints did not, until each is pinned to the tool as first listed after the upgrade.
 */
const reviewedToolsV2 = z.object({
  v: z.literal(2),
  tools: z.record(z.string(), z.string()),
  beforeTitles: z.record(z.string(), z.string()).optional(),
});
/** Version 1: fingerprints without the title. */
const reviewedToolsV1 = z
  .object({ v: z.literal(1), tools: z.record(z.string(), z.string()) })
  .transform((o): StoredReviewedTools => ({ v: 2, tools: {}, ...(Object.keys(o.tools).length > 0 && { beforeTitles: o.tools }) }));
export type StoredReviewedTools = z.infer<typeof reviewedToolsV2>;
/** What the column may hold (the column's default is still an empty version 1). */
export type StoredReviewedToolsAnyVersion = z.input<typeof reviewedToolsV2> | z.input<typeof reviewedToolsV1>;
export const storedReviewedTools = z.union([reviewedToolsV2, reviewedToolsV1]);

// ── mcp_servers.headers_sealed, once opened: header name → value ──────────────────────────
export const sealedHeaders = z.record(z.string(), z.string());

// ── oauth_credentials.tokens and client_info, once opened ─────────────────────────────────────
// The SDK's own schemas (what `saveTokens` / `saveClientInformation` were given), loose: fields
// they do not name (a registration's metadata, a provider's extras) are kept, not stripped, since
// an opened client is sealed again with the next tokens.
/** Tokens as the SDK stored them (OAuth 2.1 token response, plus the issuer it stamps). */
export const sealedOAuthTokens = OAuthTokensSchema.loose();
/** Client information: registered (RFC 7591), pre-registered or a client ID metadata document URL. */
export const sealedOAuthClient = OAuthClientInformationSchema.loose();

// ── tool_catalogs.catalog: a server's usable tools as last listed ──────────────────────────
const catalogToolShape = z.object({
  serverId: z.string(),
  namespace: z.string(),
  serverName: z.string(),
  trust: z.enum(TRUST_LEVELS),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: jsonObject,
  outputSchema: jsonObject.optional(),
  annotations: storedAnnotations,
  declaredAnnotations: storedAnnotations.optional(),
  fingerprint: z.string(),
  untitledFingerprint: z.string().optional(),
  /** Its interactive view (MCP Apps); absent in catalogs stored before views were kept. */
  view: z
    .object({
      resourceUri: z.string(),
      modelVisible: z.boolean(),
      appCallable: z.literal(false).optional(),
      contentHash: z.string().optional(),
    })
    .optional(),
  /** It may run as a task (MCP Tasks); absent in catalogs stored before tasks were followed. */
  taskSupport: z.enum(TASK_SUPPORT).optional(),
});
const catalogV1 = z.object({
  v: z.literal(1),
  tools: z.array(catalogToolShape),
  skipped: z.array(z.object({ serverId: z.string(), name: z.string(), reason: z.string() })),
  truncated: z.boolean(),
});
/** Version 0 had the same fields and no `v`. */
const catalogV0 = catalogV1.omit({ v: true }).transform((o): StoredCatalog => ({ v: 1, ...o }));
export type StoredCatalog = z.infer<typeof catalogV1>;
export const storedCatalog = z.union([catalogV1, catalogV0]);
