import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { StoredOrgPolicy, StoredReviewedToolsAnyVersion } from '../stored-json';
import { ORG_ROLES, ORG_SERVER_AUTH, TRUST_LEVELS } from '../vocabulary';
import { ownerRef, users } from './accounts';
import { createdAt } from './columns';

/**
 * Organizations: a layer above people (issue 26). Everything a person owns stays theirs; an
 * organization only says who belongs, in which role. Existing single users belong to none.
 */
export const organizations = pgTable(
  'organizations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    // The one organization the operator's first account owns (lib/orgs/default-org.ts); the
    // partial unique index makes two first sign-ups at once create one.
    isDefault: boolean('is_default').notNull().default(false),
    // People who sign in by single sign-on for the first time with a verified email of this
    // domain (lower-case, no @) join as members. Null: nobody joins by domain.
    joinDomain: text('join_domain'),
    // What the organization allows its people (db/json/orgs.ts, lib/consent/org-policy.ts); null:
    // nothing narrowed (DEFAULT_ORG_POLICY), so an organization changes nothing until it says so.
    policy: jsonb('policy').$type<StoredOrgPolicy>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('organizations_one_default_idx')
      .on(t.isDefault)
      .where(sql`${t.isDefault}`),
    uniqueIndex('organizations_join_domain_idx').on(t.joinDomain),
  ],
);

const orgRef = () =>
  uuid('org_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });

export const orgMemberships = pgTable(
  'org_memberships',
  {
    orgId: orgRef(),
    userId: ownerRef(),
    role: text('role', { enum: ORG_ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index('org_memberships_user_idx').on(t.userId)],
);

// One-time invitation links; only a hash of the token is stored (a copy of the database joins nobody).
export const orgInvitations = pgTable(
  'org_invitations',
  {
    tokenHash: text('token_hash').primaryKey(),
    orgId: orgRef(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    usedBy: uuid('used_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [index('org_invitations_org_idx').on(t.orgId)],
);

// A server an admin added once for the whole organization (issue 26, shared servers). Each member
// who uses it has a row of their own in mcp_servers (`org_server_id`), so the engine, catalogs,
// grants and gateway treat it as any server of theirs; that row holds nothing of the shared
// credential, which stays here (sealed, bound to this row and organization) and is opened when a
// connection is made. `reviewed_tools` is what the admin reviewed; members' rows follow it.
export const orgServers = pgTable(
  'org_servers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    orgId: orgRef(),
    name: text('name').notNull(),
    namespace: text('namespace').notNull(),
    url: text('url').notNull(),
    auth: text('auth', { enum: ORG_SERVER_AUTH }).notNull(),
    // `shared` auth: a sealed JSON object of header name → value. Never in a member's row or view.
    headersSealed: text('headers_sealed'),
    // On for every member (they cannot turn it off); optional: each member turns it on.
    required: boolean('required').notNull().default(false),
    trust: text('trust', { enum: TRUST_LEVELS }).notNull().default('untrusted'),
    timeoutMs: integer('timeout_ms').notNull().default(60_000),
    reviewedTools: jsonb('reviewed_tools').$type<StoredReviewedToolsAnyVersion>().notNull().default({ v: 1, tools: {} }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('org_servers_namespace_idx').on(t.orgId, t.namespace)],
);
