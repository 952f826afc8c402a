import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { StoredConstraint, StoredGrantCoverage } from '../stored-json';
import { GRANT_EXPIRIES, GRANT_REVOKE_REASONS } from '../vocabulary';
import { authSessions, ownerRef } from './accounts';
import { createdAt } from './columns';
import { conversationRef } from './conversations';

/** Grants and switches: what a conversation may use (written only through db/queries/grants.ts). */

// What the person switched on for one conversation, in one signed-in session (issue 9). A grant
// makes the tools of its scope (`tool:<serverId>/<tool>` or `server:<serverId>/*`) available to
// the model there; `auto_approve` lets them run without asking where the decision table allows
// it; `constraint` is a JSON Schema fragment the input must also satisfy. `covered` keeps the
// definition of every tool the grant was given for: a tool whose fingerprint changed since is
// suspended, a tool added to the server later is not covered. A grant ends at `expires_at` (null:
// when its session ends), or when revoked — by the person, by a newer grant of the same scope,
// or by its session signing out. Ended rows stay: they say what was allowed when.
export const toolGrants = pgTable(
  'tool_grants',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    conversationId: conversationRef(),
    sessionId: text('session_id')
      .notNull()
      .references(() => authSessions.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    autoApprove: boolean('auto_approve').notNull().default(false),
    constraint: jsonb('constraint').$type<StoredConstraint>(),
    covered: jsonb('covered').notNull().$type<StoredGrantCoverage>(),
    expiresIn: text('expires_in', { enum: GRANT_EXPIRIES }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason', { enum: GRANT_REVOKE_REASONS }),
  },
  (t) => [
    // One live grant per scope: a new one replaces the old in the same transaction.
    uniqueIndex('tool_grants_live_scope_idx')
      .on(t.userId, t.conversationId, t.sessionId, t.scope)
      .where(sql`revoked_at is null`),
    // Signing out revokes every grant of the session.
    index('tool_grants_session_idx')
      .on(t.sessionId)
      .where(sql`revoked_at is null`),
  ],
);

// A tool the person switched off in a conversation. Unlike a grant it is not tied to a session:
// turning something off lasts (across sign-out), turning something on expires. Only the
// first-party tools that are on by default need it; for anything else, off is the absence of a grant.
export const toolSwitches = pgTable(
  'tool_switches',
  {
    userId: ownerRef(),
    conversationId: conversationRef(),
    serverId: text('server_id').notNull(),
    tool: text('tool').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.serverId, t.tool] }), index('tool_switches_user_idx').on(t.userId)],
);
