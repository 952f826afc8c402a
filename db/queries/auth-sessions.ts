import { and, eq, gt, isNull } from 'drizzle-orm';

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
