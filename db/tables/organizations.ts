import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { StoredOrgPolicy } from '../stored-json';
import { ORG_ROLES } from '../vocabulary';
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
