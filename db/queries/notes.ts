import { and, desc, eq, ilike, or, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { notes } from '../schema';

export type NoteRow = typeof notes.$inferSelect;

/** A search hit: a short excerpt instead of the body, so a list of 50 hits stays small. */
export interface NoteHit {
  id: string;
  title: string;
  snippet: string;
  updatedAt: Date;
}

export const SNIPPET_CHARS = 200;
// How much text before the first match the snippet keeps, so the match has some context.
const SNIPPET_LEAD = 60;

/** LIKE treats `%`, `_` and `\` as syntax; a query is plain text, so they match themselves. */
function likePattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The user's notes whose title or body contains `query` (case-insensitive), most recently
 * updated first. An empty (or blank) query lists the most recent notes.
 */
export async function searchNotes(db: Db, userId: string, input: { query: string; limit?: number }): Promise<NoteHit[]> {
  const query = input.query.trim();
  const limit = Math.min(Math.max(Math.trunc(input.limit ?? 10), 1), 50);
  // The snippet is cut in SQL: a 100k body never leaves the database for a search.
  const pos = query ? sql`strpos(lower(${notes.body}), lower(${query}))` : sql`0`;
  const start = sql<number>`(case when ${pos} > 0 then greatest(${pos} - ${SNIPPET_LEAD}, 1) else 1 end)`;
  const rows = await db
    .select({
      id: notes.id,
      title: notes.title,
      updatedAt: notes.updatedAt,
      start,
      bodyLength: sql<number>`length(${notes.body})`,
      excerpt: sql<string>`substr(${notes.body}, ${start}, ${SNIPPET_CHARS})`,
    })
    .from(notes)
    .where(
      query
        ? and(eq(notes.userId, userId), or(ilike(notes.title, likePattern(query)), ilike(notes.body, likePattern(query))))
        : eq(notes.userId, userId),
    )
    .orderBy(desc(notes.updatedAt), desc(notes.id))
    .limit(limit);
  return rows.map((r) => {
    const start = Number(r.start);
    const cutEnd = start - 1 + SNIPPET_CHARS < Number(r.bodyLength);
    const snippet = `${start > 1 ? '…' : ''}${r.excerpt.replace(/\s+/g, ' ').trim()}${cutEnd ? '…' : ''}`;
    return { id: r.id, title: r.title, snippet, updatedAt: r.updatedAt };
  });
}

/** Ownership is part of the lookup: another user's note reads as "not found" (null). */
export async function getNote(db: Db, userId: string, id: string): Promise<NoteRow | null> {
  const rows = await db
    .select()
    .from(notes)
    .where(and(eq(notes.id, id), eq(notes.userId, userId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function createNote(db: Db, userId: string, input: { title: string; body: string }): Promise<NoteRow> {
  const rows = await db.insert(notes).values({ userId, title: input.title, body: input.body }).returning();
  return rows[0]!;
}

/** Changes only the fields given; null when the note is not the user's (or does not exist). */
export async function updateNote(
  db: Db,
  userId: string,
  id: string,
  input: { title?: string; body?: string },
  now = new Date(),
): Promise<NoteRow | null> {
  const rows = await db
    .update(notes)
    .set({
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      updatedAt: now,
    })
    .where(and(eq(notes.id, id), eq(notes.userId, userId)))
    .returning();
  return rows[0] ?? null;
}

/**
 * Deletes the user's note and returns what was deleted, or null. With `ifTitle`, the title
 * check is part of the same statement: a rename between the check and the delete cannot slip by.
 */
export async function deleteNote(
  db: Db,
  userId: string,
  id: string,
  opts: { ifTitle?: string } = {},
): Promise<{ id: string; title: string } | null> {
  const rows = await db
    .delete(notes)
    .where(and(eq(notes.id, id), eq(notes.userId, userId), opts.ifTitle !== undefined ? eq(notes.title, opts.ifTitle) : undefined))
    .returning({ id: notes.id, title: notes.title });
  return rows[0] ?? null;
}
