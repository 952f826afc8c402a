import { and, eq, isNull, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { conversations } from '../schema';
import { parseStored, storedTaint, type StoredTaint } from '../stored-json';

/**
 * Records that content the person does not vouch for (from a server whose content is not
 * trusted) entered the conversation's model context. Only the first time counts (it is what the
 * panel explains); a conversation never becomes untainted. Returns whether this call set it.
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
 * How the conversation first got tainted, or null. Besides the stored mark, a stored result whose
 * content was not trusted (`tool_calls.content_trusted`, as it stood when the result was stored)
 * counts by itself: conversations from before the mark existed have only that, and a crash
 * between storing a result and marking the conversation must not leave it untainted. A result an
 * interactive view asked for (`asked_by_call_id`) went back to the view, never to the model: it
 * does not count.
 */
export async function getConversationTaint(db: Db, conversationId: string): Promise<StoredTaint | null> {
  // One statement: the mark, and the first stored result of untrusted content (read only when there is no mark).
  // Raw `conversations.…` in the subquery: an interpolated column may be rendered unqualified, and `id` alone is t.id there.
  const rows = await db
    .select({
      tainted: conversations.tainted,
      first: sql<FirstUntrusted | null>`(select json_build_object('serverId', t.server_id, 'serverName', t.server_name, 'tool', t.tool,
          'at', coalesce(t.ended_at, t.created_at))
        from tool_calls t
        where conversations.tainted is null and t.conversation_id = conversations.id and not t.content_trusted
          and t.status in ('succeeded', 'errored') and t.asked_by_call_id is null
        order by t.created_at asc limit 1)`,
    })
    .from(conversations)
    .where(eq(conversations.id, conversationId))
    .limit(1);
  const mark = parseStored(storedTaint, rows[0]?.tainted, 'conversations.tainted', conversationId);
  if (mark) return mark;
  const row = rows[0]?.first;
  if (!row) return null;
  return {
    v: 1,
    at: new Date(row.at).toISOString(),
    source: 'result',
    serverId: row.serverId ?? 'unknown',
    serverName: row.serverName ?? 'an untrusted server',
    ...(row.tool ? { tool: row.tool } : {}),
  };
}

interface FirstUntrusted {
  serverId: string | null;
  serverName: string | null;
  tool: string | null;
  at: string;
}

/** Whether content the person does not vouch for has entered the conversation's model context (see getConversationTaint). */
export async function isConversationTainted(db: Db, conversationId: string): Promise<boolean> {
  return (await getConversationTaint(db, conversationId)) !== null;
}
