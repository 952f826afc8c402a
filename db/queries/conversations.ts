import { and, desc, eq, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { conversations } from '../schema';
import {
  parseStored,
  storedConversationClient,
  storedForkOrigin,
  storedTaint,
  storedThinking,
  type StoredConversationClient,
  type StoredThinking,
} from '../stored-json';

export type ConversationRow = typeof conversations.$inferSelect;

/** The JSON columns through their schemas (db/stored-json.ts). */
function parseConversationRow(raw: ConversationRow): ConversationRow {
  const at = (column: string) => [`conversations.${column}`, raw.id] as const;
  return {
    ...raw,
    tainted: parseStored(storedTaint, raw.tainted, ...at('tainted')),
    forkedFrom: parseStored(storedForkOrigin, raw.forkedFrom, ...at('forked_from')),
    startedBy: parseStored(storedConversationClient, raw.startedBy, ...at('started_by')),
    thinking: parseStored(storedThinking, raw.thinking, ...at('thinking')),
  };
}

export async function createConversation(
  db: Db,
  /** `startedBy`: the MCP client whose `switchboard_ask` starts it (lib/gateway/ask-tool.ts). */
  input: { userId: string; model: string; title?: string; startedBy?: StoredConversationClient },
): Promise<ConversationRow> {
  const rows = await db
    .insert(conversations)
    .values({
      userId: input.userId,
      model: input.model,
      ...(input.title ? { title: input.title } : {}),
      ...(input.startedBy && { startedBy: input.startedBy }),
    })
    .returning();
  return parseConversationRow(rows[0]!);
}

/** The user's conversations, most recently active first. */
export async function listConversations(db: Db, userId: string, limit = 200): Promise<ConversationRow[]> {
  return db
    .select()
    .from(conversations)
    .where(eq(conversations.userId, userId))
    .orderBy(desc(conversations.updatedAt), desc(conversations.id))
    .limit(limit)
    .then((rows) => rows.map(parseConversationRow));
}

/** Ownership is part of the lookup: another user's id reads as "not found". */
export async function getConversation(db: Db, userId: string, id: string): Promise<ConversationRow | null> {
  const rows = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .limit(1);
  return rows[0] ? parseConversationRow(rows[0]) : null;
}

export async function renameConversation(db: Db, userId: string, id: string, title: string): Promise<ConversationRow | null> {
  const rows = await db
    .update(conversations)
    .set({ title })
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning();
  return rows[0] ? parseConversationRow(rows[0]) : null;
}

/** The person's instructions for the conversation (null: none); they apply from its next model step. */
export async function setConversationInstructions(
  db: Db,
  userId: string,
  id: string,
  instructions: string | null,
): Promise<ConversationRow | null> {
  const rows = await db
    .update(conversations)
    .set({ instructions })
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning();
  return rows[0] ? parseConversationRow(rows[0]) : null;
}

/** The conversation's extended-thinking setting (null: off); applies from its next turn. */
export async function setConversationThinking(
  db: Db,
  userId: string,
  id: string,
  thinking: StoredThinking | null,
): Promise<ConversationRow | null> {
  const rows = await db
    .update(conversations)
    .set({ thinking })
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning();
  return rows[0] ? parseConversationRow(rows[0]) : null;
}

/** The conversation's model (a listed model id, checked by the caller); applies from its next turn. */
export async function setConversationModel(db: Db, userId: string, id: string, model: string): Promise<ConversationRow | null> {
  const rows = await db
    .update(conversations)
    .set({ model })
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning();
  return rows[0] ? parseConversationRow(rows[0]) : null;
}

export async function deleteConversation(db: Db, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/** Gives a conversation still called "New conversation" a title from its first message; true when it did. */
export async function setDefaultTitle(db: Db, id: string, title: string): Promise<boolean> {
  return replaceTitle(db, id, 'New conversation', title);
}

/** Sets a title only if the conversation still has `from` (a title the person chose is never overwritten). */
export async function replaceTitle(db: Db, id: string, from: string, to: string): Promise<boolean> {
  const rows = await db
    .update(conversations)
    .set({ title: to })
    .where(and(eq(conversations.id, id), eq(conversations.title, from)))
    .returning({ id: conversations.id });
  return rows.length > 0;
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface ConversationMatch {
  conversation: ConversationRow;
  /** The text of the newest message that matched (null when only the title matched). */
  matchedText: string | null;
}

/**
 * The user's conversations whose title or the text a person or the model wrote (not tool
 * output) contains `query`, case-insensitively, most recently active first.
 */
export async function searchConversations(db: Db, userId: string, query: string, limit = 30): Promise<ConversationMatch[]> {
  const pattern = likePattern(query);
  // Raw `conversations.id` in the subqueries: an interpolated column may be rendered unqualified, and `id` alone is m.id there.
  const rows = await db
    .select({
      conversation: conversations,
      matchedText: sql<string | null>`(
        select b.value->>'text' from messages m, jsonb_array_elements(m.content) b
        where m.conversation_id = conversations.id and b.value->>'type' = 'text' and b.value->>'text' ilike ${pattern}
        order by m.seq desc limit 1)`,
    })
    .from(conversations)
    .where(
      and(
        eq(conversations.userId, userId),
        sql`(${conversations.title} ilike ${pattern} or exists (
          select 1 from messages m, jsonb_array_elements(m.content) b
          where m.conversation_id = conversations.id and b.value->>'type' = 'text' and b.value->>'text' ilike ${pattern}))`,
      ),
    )
    .orderBy(desc(conversations.updatedAt), desc(conversations.id))
    .limit(limit);
  return rows.map((r) => ({ ...r, conversation: parseConversationRow(r.conversation) }));
}

/**
 * Locks the conversation's row until the transaction ends (`for update`, which a run's insert
 * also waits for through its foreign key): what is checked about its turns stays true.
 */
export async function lockConversation(tx: Db, id: string): Promise<void> {
  await tx.execute(sql`select 1 from conversations where id = ${id} for update`);
}
