import { and, eq, gt, inArray, lte } from 'drizzle-orm';

import type { Db } from '../connection';
import { mcpSessions } from '../schema';

/** Which kept session: one per (user, conversation, server, server URL). */
export interface McpSessionKey {
  userId: string;
  conversationId: string;
  serverId: string;
  serverUrl: string;
}

export interface McpSessionRow extends McpSessionKey {
  sessionId: string;
  protocolVersion: string;
}

const returned = {
  userId: mcpSessions.userId,
  conversationId: mcpSessions.conversationId,
  serverId: mcpSessions.serverId,
  serverUrl: mcpSessions.serverUrl,
  sessionId: mcpSessions.sessionId,
  protocolVersion: mcpSessions.protocolVersion,
};

function keyIs(key: McpSessionKey) {
  return and(
    eq(mcpSessions.conversationId, key.conversationId),
    eq(mcpSessions.serverId, key.serverId),
    eq(mcpSessions.serverUrl, key.serverUrl),
    eq(mcpSessions.userId, key.userId),
  );
}

/** The kept session if it was used after `staleBefore`, marked used at `now` in the same statement. */
export async function touchLiveSession(db: Db, key: McpSessionKey, staleBefore: Date, now: Date): Promise<McpSessionRow | null> {
  const rows = await db
    .update(mcpSessions)
    .set({ lastUsedAt: now })
    .where(and(keyIs(key), gt(mcpSessions.lastUsedAt, staleBefore)))
    .returning(returned);
  return rows[0] ?? null;
}

/** Marks this very session used (not one another instance put in its place meanwhile). */
export async function touchSession(db: Db, key: McpSessionKey, sessionId: string, now: Date): Promise<void> {
  await db
    .update(mcpSessions)
    .set({ lastUsedAt: now })
    .where(and(keyIs(key), eq(mcpSessions.sessionId, sessionId)));
}

/**
 * Keeps a new session for the key, unless a live one is kept already: two instances that open a
 * session at once keep the first one written (the other ends its own). One gone idle is replaced.
 * True when this session is the one kept.
 */
export async function keepSession(db: Db, row: McpSessionRow, opts: { now: Date; staleBefore: Date }): Promise<boolean> {
  const rows = await db
    .insert(mcpSessions)
    .values({ ...row, createdAt: opts.now, lastUsedAt: opts.now })
    .onConflictDoUpdate({
      target: [mcpSessions.conversationId, mcpSessions.serverId, mcpSessions.serverUrl, mcpSessions.userId],
      set: { sessionId: row.sessionId, protocolVersion: row.protocolVersion, createdAt: opts.now, lastUsedAt: opts.now },
      setWhere: lte(mcpSessions.lastUsedAt, opts.staleBefore),
    })
    .returning({ sessionId: mcpSessions.sessionId });
  return rows[0]?.sessionId === row.sessionId;
}

/** Forgets this very session (a newer one another instance kept stays). */
export async function deleteSession(db: Db, key: McpSessionKey, sessionId: string): Promise<void> {
  await db.delete(mcpSessions).where(and(keyIs(key), eq(mcpSessions.sessionId, sessionId)));
}

/** Forgets the key's session if it went idle, and returns it (to be ended). */
export async function takeStaleSession(db: Db, key: McpSessionKey, staleBefore: Date): Promise<McpSessionRow | null> {
  const rows = await db
    .delete(mcpSessions)
    .where(and(keyIs(key), lte(mcpSessions.lastUsedAt, staleBefore)))
    .returning(returned);
  return rows[0] ?? null;
}

/**
 * Forgets up to `limit` sessions idle since `staleBefore` and returns them (the sweep ends them).
 * A call that touches one meanwhile keeps it: the delete re-checks the row it waited for.
 */
export async function takeIdleSessions(db: Db, staleBefore: Date, limit: number): Promise<McpSessionRow[]> {
  const oldest = db
    .select({ conversationId: mcpSessions.conversationId })
    .from(mcpSessions)
    .where(lte(mcpSessions.lastUsedAt, staleBefore))
    .orderBy(mcpSessions.lastUsedAt)
    .limit(limit);
  return db
    .delete(mcpSessions)
    .where(and(lte(mcpSessions.lastUsedAt, staleBefore), inArray(mcpSessions.conversationId, oldest)))
    .returning(returned);
}

/** Forgets every session of a conversation and returns them (it is being deleted). */
export async function takeConversationSessions(db: Db, userId: string, conversationId: string): Promise<McpSessionRow[]> {
  return db
    .delete(mcpSessions)
    .where(and(eq(mcpSessions.userId, userId), eq(mcpSessions.conversationId, conversationId)))
    .returning(returned);
}

/** Forgets every session a user holds with a server (its URL changed, it was removed, or its sign-in ended). */
export async function deleteServerSessions(db: Db, userId: string, serverId: string): Promise<void> {
  await db.delete(mcpSessions).where(and(eq(mcpSessions.userId, userId), eq(mcpSessions.serverId, serverId)));
}
