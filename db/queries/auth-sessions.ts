import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm';

import type { Db } from '../connection';
import { authSessions } from '../schema';

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

export async function endAuthSession(db: Db, id: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .update(authSessions)
    .set({ endedAt: now })
    .where(and(eq(authSessions.id, id), isNull(authSessions.endedAt)))
    .returning({ id: authSessions.id });
  return rows.length > 0;
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

/** Ends every live session of the user except `keepId` (null: all of them); returns how many ended. */
export async function endAuthSessionsOfUser(db: Db, userId: string, keepId: string | null, now = new Date()): Promise<number> {
  const rows = await db
    .update(authSessions)
    .set({ endedAt: now })
    .where(and(eq(authSessions.userId, userId), isNull(authSessions.endedAt), keepId ? ne(authSessions.id, keepId) : undefined))
    .returning({ id: authSessions.id });
  return rows.length;
}
