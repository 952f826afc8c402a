import { createHash } from 'node:crypto';

import type { Db } from '@/db/connection';
import { endAuthSessionsOfUser, listLiveAuthSessions } from '@/db/queries/auth-sessions';
import { getAuditKeyring } from '@/lib/audit/key';
import type { Session } from '@/lib/auth/session';
import { logGrantsEndedAtSignOut } from '@/lib/consent/grant-audit';

export interface SessionView {
  /** Derived from the session id, never the id itself (which signed cookies carry). */
  id: string;
  createdAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
  userAgent: string | null;
  current: boolean;
}

export function publicSessionId(sessionId: string): string {
  return createHash('sha256').update(`session:${sessionId}`).digest('base64url').slice(0, 16);
}

/** The user's signed-in sessions, newest first, with the one making this request marked. */
export async function listSessions(db: Db, session: Session): Promise<SessionView[]> {
  const rows = await listLiveAuthSessions(db, session.user.id);
  return rows.map((row) => ({
    id: publicSessionId(row.id),
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    expiresAt: row.expiresAt.toISOString(),
    userAgent: row.userAgent,
    current: row.id === session.sessionId,
  }));
}

/** Signs out everywhere but here. */
export async function endOtherSessions(db: Db, session: Session): Promise<{ endedSessions: number }> {
  return {
    endedSessions: await endAuthSessionsOfUser(
      db,
      session.user.id,
      session.sessionId,
      new Date(),
      logGrantsEndedAtSignOut(await getAuditKeyring()),
    ),
  };
}
