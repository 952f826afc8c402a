import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm';

import type { Db } from '../connection';
import { authSessions } from '../schema';
import { revokeGrantsOfSessions, type GrantRow } from './grants';

/** Runs in the sign-out's transaction with the grants it ended (the audit log records them). */
export type GrantsEndedHook = (tx: Db, grants: GrantRow[]) => Promise<void>;

export type AuthSessionRow = typeof authSessions.$inferSelect;

export async function createAuthSession(
  db: Db,
  input: { id: string; userId: string; expiresAt: Date; userAgent?: string | null },
): Promise<AuthSessionRow> {
  const rows = await db.insert(authSessions).values(input).returning();
  return rows[0]!;
}

/** The session if it is still live: not signed out and not expired. */
export async function findLiveAuthSession(db: Db, id: string, now = new Date()): Promise<AuthSessionRow | null> {
  const rows = await db
    .select()
    .from(authSessions)
    .where(and(eq(authSessions.id, id), isNull(authSessions.endedAt), gt(authSessions.expiresAt, now)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Ends a session (sign-out) and, in the same transaction, every tool grant it held: turning
 * something on lasts only as long as the session that did it. Every way a session ends goes
 * through here or `endAuthSessionsOfUser`.
 */
export async function endAuthSession(db: Db, id: string, now = new Date(), onGrantsEnded?: GrantsEndedHook): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(authSessions)
      .set({ endedAt: now })
      .where(and(eq(authSessions.id, id), isNull(authSessions.endedAt)))
      .returning({ id: authSessions.id });
    const ended = await revokeGrantsOfSessions(
      tx,
      rows.map((r) => r.id),
      now,
    );
    if (ended.length) await onGrantsEnded?.(tx, ended);
    return rows.length > 0;
  });
}

/** Records that the session was just used (the account page shows it as "last seen"). */
export async function touchAuthSession(db: Db, id: string, now = new Date()): Promise<void> {
  await db.update(authSessions).set({ lastSeenAt: now }).where(eq(authSessions.id, id));
}

/** The user's live sessions, newest first. */
export async function listLiveAuthSessions(db: Db, userId: string, now = new Date()): Promise<AuthSessionRow[]> {
  return db
    .select()
    .from(authSessions)
    .where(and(eq(authSessions.userId, userId), isNull(authSessions.endedAt), gt(authSessions.expiresAt, now)))
    .orderBy(desc(authSessions.createdAt), desc(authSessions.id));
}

/**
 * Ends every live session of the user except `keepId` (null: all of them) — sign out elsewhere,
 * a password change or reset — and their tool grants; returns how many sessions ended.
 */
export async function endAuthSessionsOfUser(
  db: Db,
  userId: string,
  keepId: string | null,
  now = new Date(),
  onGrantsEnded?: GrantsEndedHook,
): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(authSessions)
      .set({ endedAt: now })
      .where(and(eq(authSessions.userId, userId), isNull(authSessions.endedAt), keepId ? ne(authSessions.id, keepId) : undefined))
      .returning({ id: authSessions.id });
    const ended = await revokeGrantsOfSessions(
      tx,
      rows.map((r) => r.id),
      now,
    );
    if (ended.length) await onGrantsEnded?.(tx, ended);
    return rows.length;
  });
}
