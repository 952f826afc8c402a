import { and, desc, eq } from 'drizzle-orm';

import type { Db } from '../connection';
import { conversations } from '../schema';

export type ConversationRow = typeof conversations.$inferSelect;

export async function createConversation(db: Db, input: { userId: string; model: string; title?: string }): Promise<ConversationRow> {
  const rows = await db
    .insert(conversations)
    .values({ userId: input.userId, model: input.model, ...(input.title ? { title: input.title } : {}) })
    .returning();
  return rows[0]!;
}

/** The user's conversations, most recently active first. */
export async function listConversations(db: Db, userId: string, limit = 200): Promise<ConversationRow[]> {
  return db
    .select()
    .from(conversations)
    .where(eq(conversations.userId, userId))
    .orderBy(desc(conversations.updatedAt), desc(conversations.id))
    .limit(limit);
}

/** Ownership is part of the lookup: another user's id reads as "not found". */
export async function getConversation(db: Db, userId: string, id: string): Promise<ConversationRow | null> {
  const rows = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function renameConversation(db: Db, userId: string, id: string, title: string): Promise<ConversationRow | null> {
  const rows = await db
    .update(conversations)
    .set({ title })
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId)))
    .returning();
  return rows[0] ?? null;
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
