import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { StoredAuthServer, StoredOAuthDiscovery, StoredReviewedToolsAnyVersion } from '../stored-json';
import { SERVER_STATUSES, SERVER_TRANSPORTS, TRUST_LEVELS } from '../vocabulary';
import { authSessions, ownerRef } from './accounts';
import { createdAt } from './columns';
import { conversationRef } from './conversations';
import { orgServers } from './organizations';

/** MCP servers, their OAuth sign-ins and the sessions kept with them. */

// OAuth credentials for remote MCP servers, one per (user, authorization server, protected
// resource): two servers behind the same resource share one sign-in. Client information and
// tokens are sealed (lib/secrets); `version` serialises refreshes across processes (a refresh is
// claimed by compare-and-swap, `refreshing_until` is the claim's lease) so that a rotated
// refresh token is never sent twice.
export const oauthCredentials = pgTable(
  'oauth_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    issuer: text('issuer').notNull(),
    resource: text('resource').notNull(),
    clientInfo: text('client_info'),
    tokens: text('tokens'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    // What the authorization server granted, and what a server asked for beyond it (step-up).
    scope: text('scope'),
    wantedScope: text('wanted_scope'),
    authServer: jsonb('auth_server').notNull().$type<StoredAuthServer>(),
    version: integer('version').notNull().default(0),
    refreshingUntil: timestamp('refreshing_until', { withTimezone: true }),
    // The tokens hold a refresh token (the sealed value cannot be queried): the background refresh takes only these.
    refreshable: boolean('refreshable').notNull().default(true),
    // When a call last asked for the access token (written at most once a minute): the background refresh keeps fresh only these.
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('oauth_credentials_key_idx').on(t.userId, t.issuer, t.resource),
    // The background refresh's scan (listCredentialsExpiring).
    index('oauth_credentials_expiring_idx')
      .on(t.expiresAt)
      .where(sql`${t.tokens} is not null`),
  ],
);

// One authorization request in progress. Only the hash of `state` is stored; the row is
// single-use (`used_at`) and bound to the user, the signed-in session and the server.
export const oauthFlows = pgTable(
  'oauth_flows',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    stateHash: text('state_hash').notNull().unique(),
    userId: ownerRef(),
    authSessionId: text('auth_session_id')
      .notNull()
      .references(() => authSessions.id, { onDelete: 'cascade' }),
    serverId: text('server_id').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    issuer: text('issuer').notNull(),
    resource: text('resource').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    returnTo: text('return_to').notNull(),
    scope: text('scope'),
    discovery: jsonb('discovery').notNull().$type<StoredOAuthDiscovery>(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('oauth_flows_server_idx').on(t.userId, t.serverId)],
);

// An MCP session kept open with a 2025-era Streamable HTTP server between calls and turns
// (lib/mcp/legacy-sessions.ts): servers like Playwright MCP keep their state per session, so a
// conversation must come back to the same one. Per (conversation, server, URL, caller); stored
// here so any instance (or one restarted) resumes it. The session id is not a credential, but
// it is the server's handle on the person's state: it never leaves the server side. No
// reference to mcp_servers (built-in ids are not there): removing a server or changing its URL
// forgets its sessions through lib/servers/hooks.ts; deleting the conversation deletes them.
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    userId: ownerRef(),
    conversationId: conversationRef(),
    serverId: text('server_id').notNull(),
    serverUrl: text('server_url').notNull(),
    sessionId: text('session_id').notNull(),
    // What `initialize` negotiated: a resumed connection skips the handshake and sends it as `MCP-Protocol-Version`.
    protocolVersion: text('protocol_version').notNull(),
    createdAt: createdAt(),
    // Idle past SESSION_IDLE_MS (lib/mcp/legacy-sessions.ts) from here, the session is ended (the sweep, or the next call).
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.serverId, t.serverUrl, t.userId] }),
    index('mcp_sessions_user_server_idx').on(t.userId, t.serverId),
    index('mcp_sessions_last_used_idx').on(t.lastUsedAt),
  ],
);

// MCP servers a person added. Secrets (header values, the OAuth client secret) are sealed by
// lib/secrets/secret-box.ts and never leave the server; changing the URL drops them. Nothing
// is offered to the model until the person has seen the tools and enabled the server, and a
// tool whose fingerprint changed since is held back until they look again.
export const mcpServers = pgTable(
  'mcp_servers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    name: text('name').notNull(),
    // Prefix of the model-facing tool names (lib/mcp/naming.ts); unique per user.
    namespace: text('namespace').notNull(),
    url: text('url').notNull(),
    // Whether its annotations (read-only, idempotent…) are believed.
    trust: text('trust', { enum: TRUST_LEVELS }).notNull().default('untrusted'),
    // Whether what it returns is believed: unless it is, its results, errors, questions, progress,
    // prompts and resources taint the conversation (lib/agent/taint.ts).
    trustContent: boolean('trust_content').notNull().default(false),
    // Whether its tools' interactive views (MCP Apps) are shown in their cards; off: the text result and a note.
    showViews: boolean('show_views').notNull().default(true),
    // Sealed JSON object of header name → value.
    headersSealed: text('headers_sealed'),
    // A pre-registered OAuth client, when the person has one for this server.
    oauthClientId: text('oauth_client_id'),
    oauthClientSecretSealed: text('oauth_client_secret_sealed'),
    timeoutMs: integer('timeout_ms').notNull().default(60_000),
    enabled: boolean('enabled').notNull().default(false),
    // Tool name → fingerprint the person approved (stored-json: storedReviewedTools).
    reviewedTools: jsonb('reviewed_tools').$type<StoredReviewedToolsAnyVersion>().notNull().default({ v: 1, tools: {} }),
    status: text('status', { enum: SERVER_STATUSES }).notNull().default('unchecked'),
    // In words, for the person; never a secret or a query string (lib/log-safe.ts).
    lastError: text('last_error'),
    protocolVersion: text('protocol_version'),
    transport: text('transport', { enum: SERVER_TRANSPORTS }),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    // A member's use of an organization's shared server (org_servers): the member cannot edit or
    // remove it; in per-user OAuth mode their own tokens are found by its URL as for any server.
    orgServerId: uuid('org_server_id').references(() => orgServers.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('mcp_servers_user_namespace_idx').on(t.userId, t.namespace),
    uniqueIndex('mcp_servers_user_org_server_idx').on(t.userId, t.orgServerId),
  ],
);
