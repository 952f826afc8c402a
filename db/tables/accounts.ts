import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { StoredTaint, StoredTokenProfile } from '../stored-json';
import type { OAuthClientKind, OAuthTokenKind } from '../vocabulary';
import { createdAt } from './columns';

/** People, their sign-ins and their tokens. */

// A row that belongs to a user and goes with them.
export const ownerRef = () =>
  uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  // Stored lower-cased and trimmed; the unique index is what makes a duplicate sign-up a 409.
  email: text('email').notNull().unique(),
  name: text('name'),
  // scrypt$N$r$p$salt$hash; null for accounts that only sign in through GitHub / Google.
  passwordHash: text('password_hash'),
  plan: text('plan').notNull().default('pro'),
  // When a sign-in provider vouched for this email (`email_verified: true`); null: nobody has
  // proven it — a password sign-up never checks the address (lib/auth/sso-link.ts).
  emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
  // The provider's display name when a single sign-on took over an account whose email was never
  // proven and removed its password: the account page says so once (null: never happened).
  passwordRemovedBy: text('password_removed_by'),
  // Bumped by triggers (migration 0016) on every change to the user's servers, grants, switches
  // and session endings: the engine reads it each step and reuses what it read at the same value.
  toolsRev: bigint('tools_rev', { mode: 'number' }).notNull().default(0),
  // The person's own instructions for every conversation (how to answer, who they are): system
  // text of each model step, never in a share or a fork. Null: none.
  instructions: text('instructions'),
  createdAt: createdAt(),
});

// Links a GitHub / Google identity to a user.
export const authAccounts = pgTable(
  'auth_accounts',
  {
    provider: text('provider').notNull(),
    providerAccountId: text('provider_account_id').notNull(),
    userId: ownerRef(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerAccountId] }), index('auth_accounts_user_idx').on(t.userId)],
);

// One row per signed-in session. The JWT only carries this id: ending the row (sign-out)
// makes a copied cookie worthless, and grants hang off it.
export const authSessions = pgTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    userId: ownerRef(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true }),
    userAgent: text('user_agent'),
    // Refreshed at most every few minutes while the session is used (the account page lists it).
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);

// Growing delays between password checks (lib/auth/throttle-policy.ts): per email and per known
// device for sign-in, per user for the current-password check of a password change. Each
// allowed check counts as a failure until the password proves right; `next_check_at` is when
// the next check may start.
export const passwordCheckThrottles = pgTable('password_check_throttles', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull(),
  lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }).notNull(),
});

// One-time password reset links made by the operator (`npm run reset-password`). Only a hash of
// the token is stored, so a copy of the database cannot be used to reset anyone's password.
export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: ownerRef(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('password_reset_tokens_user_idx').on(t.userId)],
);

// Personal access tokens (issue 25): a script, CI job or MCP client signs in as the person with
// `Authorization: Bearer sbp_…` (lib/auth/access-tokens.ts). Only the token's SHA-256 is stored,
// so a copy of the database signs no one in; `prefix` is its first characters, not secret, for
// telling tokens apart in the list. A revoked token keeps its row (revoked_at) until the user goes.
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    name: text('name').notNull(),
    // A personal access token's hash and shown prefix; null for a connected OAuth client, whose
    // secrets are its short-lived access tokens and refresh tokens (oauth_tokens).
    tokenHash: text('token_hash'),
    prefix: text('prefix'),
    // Set for a connected OAuth client (issue 25): the client the person allowed at the consent
    // screen. Its profile, taint, last use and revocation live on this row, as a token's do.
    oauthClientId: uuid('oauth_client_id').references(() => oauthClients.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    // Refreshed at most once a minute while the token is used (ACCESS_TOKEN_LAST_USED_PRECISION_MS).
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    // Which of the person's tools the token exposes on /mcp (lib/gateway/profile.ts): none by default.
    profile: jsonb('profile')
      .notNull()
      .$type<StoredTokenProfile>()
      .default(sql`'{"v":1,"tools":[]}'::jsonb`),
    // The token's standing context (lib/gateway/taint.ts): set once text from a server whose content
    // the person does not trust has gone back to this client; from then on the decision table treats
    // its calls as a tainted conversation's.
    tainted: jsonb('tainted').$type<StoredTaint>(),
  },
  (t) => [uniqueIndex('access_tokens_hash_idx').on(t.tokenHash), index('access_tokens_user_idx').on(t.userId)],
);

/**
 * The clients of Switchboard's own authorization server (issue 25; lib/oauth-server): MCP clients
 * that connect to /mcp. Either a Client ID Metadata Document (`client_id` is the https URL of its
 * JSON, cached here with when it was fetched) or a client registered dynamically (RFC 7591).
 * Public clients only (PKCE, no secret). Not owned by anyone: the person's consent is the
 * `access_tokens` row.
 */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: text('client_id').notNull(),
    kind: text('kind').$type<OAuthClientKind>().notNull(),
    name: text('name').notNull(),
    clientUri: text('client_uri'),
    redirectUris: text('redirect_uris').array().notNull(),
    // A metadata document's: when it was last fetched (it is fetched again once stale).
    fetchedAt: timestamp('fetched_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_clients_client_id_idx').on(t.clientId)],
);

/**
 * Authorization codes (hashed), one use each, a minute or so of life. `grant_id` is set when the
 * code is exchanged, so a second exchange revokes what the first one issued (OAuth 2.1 §4.1.3).
 */
export const oauthCodes = pgTable(
  'oauth_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    codeHash: text('code_hash').notNull(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    userId: ownerRef(),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    resource: text('resource').notNull(),
    // The tools the person picked at the consent screen (lib/gateway/profile.ts).
    profile: jsonb('profile').notNull().$type<StoredTokenProfile>(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    grantId: uuid('grant_id').references(() => accessTokens.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_codes_hash_idx').on(t.codeHash)],
);

/**
 * Access and refresh tokens of connected clients (hashed, as personal access tokens are). Each
 * belongs to one grant (`access_tokens` row): revoking the grant ends them all. A refresh token is
 * used once (`used_at`); presenting it again revokes the grant — the whole family.
 */
export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    kind: text('kind').$type<OAuthTokenKind>().notNull(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => accessTokens.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_tokens_hash_idx').on(t.tokenHash), index('oauth_tokens_grant_idx').on(t.grantId)],
);
