import { and, asc, eq, inArray, isNull } from 'drizzle-orm';

import type { Db } from '../connection';
import { conversations, toolCalls } from '../schema';
import { parseStored, storedTaint, type StoredTaint } from '../stored-json';

/**
 * Records that text from an untrusted server entered the conversation's model context. Only the
 * first time counts (it is what the panel explains); a conversation never becomes untainted.
 * Returns whether this call was the one that set it.
 */
export async function markConversationTainted(db: Db, conversationId: string, taint: StoredTaint): Promise<boolean> {
  const rows = await db
    .update(conversations)
    .set({ tainted: taint })
    .where(and(eq(conversations.id, conversationId), isNull(conversations.tainted)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/**
 * How the conversation first got tainted, or null. Besides the stored mark, a stored result of an
 * untrusted server counts by itself: conversations from before the mark existed have only that,
 * and a crash between storing a result and marking the conversation must not leave it untainted.
 */
export async function getConversationTaint(db: Db, conversationId: string): Promise<StoredTaint | null> {
  const stored = await db
    .select({ tainted: conversations.tainted })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  const mark = parseStored(storedTaint, stored[0]?.tainted, 'conversations.tainted', conversationId);
  if (mark) return mark;
  const rows = await db
    .select({
      serverId: toolCalls.serverId,
      serverName: toolCalls.serverName,
      tool: toolCalls.tool,
      endedAt: toolCalls.endedAt,
      createdAt: toolCalls.createdAt,
    })
    .from(toolCalls)
    .where(
      and(
        eq(toolCalls.conversationId, conversationId),
        eq(toolCalls.trust, 'untrusted'),
        inArray(toolCalls.status, ['succeeded', 'errored']),
      ),
    )
    .orderBy(asc(toolCalls.createdAt))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return {
    v: 1,
    at: (row.endedAt ?? row.createdAt).toISOString(),
    source: 'result',
    serverId: row.serverId ?? 'unknown',
    serverName: row.serverName ?? 'an untrusted server',
    ...(row.tool ? { tool: row.tool } : {}),
  };
}

/** Whether text from an untrusted server has entered the conversation's model context (see getConversationTaint). */
export async function isConversationTainted(db: Db, conversationId: string): Promise<boolean> {
  return (await getConversationTaint(db, conversationId)) !== null;
}
