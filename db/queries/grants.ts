import { and, desc, eq, inArray, isNull } from 'drizzle-orm';

import type { Db } from '../connection';
import { toolGrants, toolSwitches } from '../schema';
import { parseStored, storedConstraint, storedGrantCoverage, type StoredConstraint, type StoredGrantCoverage } from '../stored-json';
import type { GrantExpiry, GrantRevokeReason } from '../vocabulary';

type RawGrant = typeof toolGrants.$inferSelect;
/** A grant with its JSON columns parsed. */
export type GrantRow = Omit<RawGrant, 'covered' | 'constraint'> & { covered: StoredGrantCoverage; constraint: StoredConstraint | null };

export interface NewGrant {
  userId: string;
  conversationId: string;
  sessionId: string;
  scope: string;
  autoApprove: boolean;
  constraint: StoredConstraint | null;
  covered: StoredGrantCoverage;
  expiresIn: GrantExpiry;
  expiresAt: Date | null;
}

/** Whose grants, where: the grants of one signed-in session in one conversation. */
export interface GrantOwner {
  userId: string;
  conversationId: string;
  sessionId: string;
}

function parse(row: RawGrant): GrantRow {
  const at = (column: string) => [`tool_grants.${column}`, row.id] as const;
  return {
    ...row,
    covered: parseStored(storedGrantCoverage, row.covered, ...at('covered'))!,
    constraint: parseStored(storedConstraint, row.constraint, ...at('constraint')),
  };
}

/** The session's grants in the conversation that were not revoked (expired ones included: the panel says so). */
export async function listLiveGrants(db: Db, owner: GrantOwner): Promise<GrantRow[]> {
  const rows = await db
    .select()
    .from(toolGrants)
    .where(
      and(
        eq(toolGrants.userId, owner.userId),
        eq(toolGrants.conversationId, owner.conversationId),
        eq(toolGrants.sessionId, owner.sessionId),
        isNull(toolGrants.revokedAt),
      ),
    )
    .orderBy(desc(toolGrants.createdAt));
  return rows.map(parse);
}

/** One of the user's grants in the conversation, live or not (another user's: null). */
export async function getGrantForUser(db: Db, userId: string, conversationId: string, grantId: string): Promise<GrantRow | null> {
  const rows = await db
    .select()
    .from(toolGrants)
    .where(and(eq(toolGrants.id, grantId), eq(toolGrants.userId, userId), eq(toolGrants.conversationId, conversationId)))
    .limit(1);
  return rows[0] ? parse(rows[0]) : null;
}

/**
 * Stores a grant, ending the live one of the same scope (reason `replaced`) in the same
 * transaction: the partial unique index allows one live grant per scope and session.
 */
export async function replaceGrant(db: Db, grant: NewGrant, now = new Date()): Promise<{ grant: GrantRow; replaced: GrantRow | null }> {
  return db.transaction(async (tx) => {
    const ended = await tx
      .update(toolGrants)
      .set({ revokedAt: now, revokedReason: 'replaced' })
      .where(
        and(
          eq(toolGrants.userId, grant.userId),
          eq(toolGrants.conversationId, grant.conversationId),
          eq(toolGrants.sessionId, grant.sessionId),
          eq(toolGrants.scope, grant.scope),
          isNull(toolGrants.revokedAt),
        ),
      )
      .returning();
    const rows = await tx
      .insert(toolGrants)
      .values({ ...grant, createdAt: now })
      .returning();
    return { grant: parse(rows[0]!), replaced: ended[0] ? parse(ended[0]) : null };
  });
}

/** Ends one live grant of the user; null when there is none by that id (or it already ended). */
export async function revokeGrantOfUser(
  db: Db,
  userId: string,
  grantId: string,
  reason: GrantRevokeReason,
  now = new Date(),
): Promise<GrantRow | null> {
  const rows = await db
    .update(toolGrants)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(toolGrants.id, grantId), eq(toolGrants.userId, userId), isNull(toolGrants.revokedAt)))
    .returning();
  return rows[0] ? parse(rows[0]) : null;
}

/** Ends the live grant of one scope, if any. */
export async function revokeGrantOfScope(
  db: Db,
  owner: GrantOwner,
  scope: string,
  reason: GrantRevokeReason,
  now = new Date(),
): Promise<GrantRow | null> {
  const rows = await db
    .update(toolGrants)
    .set({ revokedAt: now, revokedReason: reason })
    .where(
      and(
        eq(toolGrants.userId, owner.userId),
        eq(toolGrants.conversationId, owner.conversationId),
        eq(toolGrants.sessionId, owner.sessionId),
        eq(toolGrants.scope, scope),
        isNull(toolGrants.revokedAt),
      ),
    )
    .returning();
  return rows[0] ? parse(rows[0]) : null;
}

/** Ends every live grant of these sessions (they signed out); returns the grants ended. */
export async function revokeGrantsOfSessions(db: Db, sessionIds: string[], now = new Date()): Promise<GrantRow[]> {
  if (!sessionIds.length) return [];
  const rows = await db
    .update(toolGrants)
    .set({ revokedAt: now, revokedReason: 'signed_out' })
    .where(and(inArray(toolGrants.sessionId, sessionIds), isNull(toolGrants.revokedAt)))
    .returning();
  return rows.map(parse);
}

// ── switches: a first-party tool the person turned off in a conversation ─────────────────────

/** `serverId/tool` of every tool switched off in the conversation. */
export async function listSwitchedOff(db: Db, userId: string, conversationId: string): Promise<Set<string>> {
  const rows = await db
    .select({ serverId: toolSwitches.serverId, tool: toolSwitches.tool })
    .from(toolSwitches)
    .where(and(eq(toolSwitches.userId, userId), eq(toolSwitches.conversationId, conversationId)));
  return new Set(rows.map((r) => `${r.serverId}/${r.tool}`));
}

export async function switchOff(db: Db, s: { userId: string; conversationId: string; serverId: string; tool: string }): Promise<void> {
  await db.insert(toolSwitches).values(s).onConflictDoNothing();
}

/** Removes a switch-off; true when there was one. */
export async function switchOn(db: Db, s: { userId: string; conversationId: string; serverId: string; tool: string }): Promise<boolean> {
  const rows = await db
    .delete(toolSwitches)
    .where(
      and(
        eq(toolSwitches.userId, s.userId),
        eq(toolSwitches.conversationId, s.conversationId),
        eq(toolSwitches.serverId, s.serverId),
        eq(toolSwitches.tool, s.tool),
      ),
    )
    .returning({ tool: toolSwitches.tool });
  return rows.length > 0;
}
