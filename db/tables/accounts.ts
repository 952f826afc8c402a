import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { StoredTaint, StoredTokenProfile } from '../stored-json';
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
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
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
