import { and, eq, inArray, lt, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { fileBlobs, files } from '../schema';
import { rowsOf } from './rate-limits';

export type FileRow = typeof files.$inferSelect;
export type NewFileRow = typeof files.$inferInsert;

/**
 * How a message's content refers to an uploaded file: a block with `source: { type: 'file',
 * file_id }` (the Messages API's own shape for a file by reference), resolved to the bytes when a
 * request is built (lib/agent/context/file-blocks.ts). The containment pattern finds messages
 * holding one.
 */
function refPattern(fileId: string): string {
  return JSON.stringify([{ source: { type: 'file', file_id: fileId } }]);
}

/** Whether a message of the file owner's conversations refers to the file row in the statement. */
function referencedSql() {
  return sql`exists (
    select 1 from messages m join conversations c on c.id = m.conversation_id
    where c.user_id = ${files.userId}
      and m.content @> jsonb_build_array(jsonb_build_object('source', jsonb_build_object('type', 'file', 'file_id', ${files.id}::text)))
  )`;
}

export async function insertFile(db: Db, row: NewFileRow): Promise<FileRow> {
  const [inserted] = await db.insert(files).values(row).returning();
  return inserted!;
}

export async function getFile(db: Db, userId: string, id: string): Promise<FileRow | null> {
  const rows = await db
    .select()
    .from(files)
    .where(and(eq(files.id, id), eq(files.userId, userId)))
    .limit(1);
  return rows[0] ?? null;
}

/** The user's files among `ids` (others' and unknown ids are simply absent). */
export async function listFilesByIds(db: Db, userId: string, ids: readonly string[]): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(files)
    .where(and(eq(files.userId, userId), inArray(files.id, [...ids])));
}

/** Every file of the user, oldest first (the account export). */
export async function listUserFiles(db: Db, userId: string): Promise<FileRow[]> {
  return db.select().from(files).where(eq(files.userId, userId)).orderBy(files.createdAt);
}

/** The bytes the user keeps: each stored content once, however many files share it. */
export async function storedBytesOf(db: Db, userId: string): Promise<number> {
  const result = await db.execute(sql`
    select coalesce(sum(size), 0)::bigint as total
    from (select distinct on (storage_key) size from files where user_id = ${userId}) s`);
  return Number(rowsOf<{ total: string | number }>(result)[0]?.total ?? 0);
}

/** Whether a message of the user's conversations refers to the file. */
export async function isFileInAMessage(db: Db, userId: string, fileId: string): Promise<boolean> {
  const result = await db.execute(sql`
    select exists (
      select 1 from messages m join conversations c on c.id = m.conversation_id
      where c.user_id = ${userId} and m.content @> ${refPattern(fileId)}::jsonb
    ) as used`);
  return rowsOf<{ used: boolean }>(result)[0]?.used === true;
}

/** Whether a message of the conversation up to `throughSeq` (a share's snapshot) refers to the file. */
export async function isFileInMessagesThrough(db: Db, conversationId: string, throughSeq: number, fileId: string): Promise<boolean> {
  const result = await db.execute(sql`
    select exists (
      select 1 from messages m
      where m.conversation_id = ${conversationId} and m.seq <= ${throughSeq} and m.content @> ${refPattern(fileId)}::jsonb
    ) as used`);
  return rowsOf<{ used: boolean }>(result)[0]?.used === true;
}

/** The ids of the files a conversation's messages refer to. */
export async function fileIdsOfConversation(db: Db, conversationId: string): Promise<string[]> {
  const result = await db.execute(sql`
    select distinct b->'source'->>'file_id' as id
    from messages m, jsonb_array_elements(m.content) b
    where m.conversation_id = ${conversationId} and b->'source'->>'type' = 'file'`);
  return rowsOf<{ id: string }>(result).map((r) => r.id);
}

/**
 * Deletes those of `ids` that no message of the user refers to any more (after their
 * conversation went), and returns the storage keys no file row holds afterwards: the caller
 * deletes those bytes from the store.
 */
export async function deleteUnreferencedFiles(db: Db, userId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const gone = await db
    .delete(files)
    .where(and(eq(files.userId, userId), inArray(files.id, [...ids]), sql`not ${referencedSql()}`))
    .returning({ storageKey: files.storageKey });
  return keysWithoutFiles(
    db,
    gone.map((g) => g.storageKey),
  );
}

/** Deletes one file row; returns its storage key when no other row of the user holds the same bytes. */
export async function deleteFileRow(db: Db, userId: string, id: string): Promise<{ orphanKey: string | null } | null> {
  const [gone] = await db
    .delete(files)
    .where(and(eq(files.id, id), eq(files.userId, userId)))
    .returning({ storageKey: files.storageKey });
  if (!gone) return null;
  return { orphanKey: (await keysWithoutFiles(db, [gone.storageKey]))[0] ?? null };
}

/** Of these keys, those no file row holds. */
export async function keysWithoutFiles(db: Db, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const held = await db
    .selectDistinct({ key: files.storageKey })
    .from(files)
    .where(inArray(files.storageKey, [...keys]));
  const holding = new Set(held.map((r) => r.key));
  return [...new Set(keys)].filter((k) => !holding.has(k));
}

/**
 * Drafts gone stale: files older than `before` that no message refers to (the person uploaded
 * them and never sent them). Deletes the rows and returns the storage keys left without a row.
 */
export async function deleteStaleDraftFiles(db: Db, before: Date): Promise<{ deleted: number; orphanKeys: string[] }> {
  const gone = await db
    .delete(files)
    .where(and(lt(files.createdAt, before), sql`not ${referencedSql()}`))
    .returning({ storageKey: files.storageKey });
  return {
    deleted: gone.length,
    orphanKeys: await keysWithoutFiles(
      db,
      gone.map((g) => g.storageKey),
    ),
  };
}

// ── the Postgres file store (lib/files/storage.ts) ──────────────────────────────────────────

/** Stores bytes under a key; the same key again keeps the bytes already there (keys are content hashes). */
export async function putBlob(db: Db, key: string, bytes: Uint8Array): Promise<void> {
  await db.insert(fileBlobs).values({ key, bytes }).onConflictDoNothing();
}

export async function getBlob(db: Db, key: string): Promise<Uint8Array | null> {
  const rows = await db.select({ bytes: fileBlobs.bytes }).from(fileBlobs).where(eq(fileBlobs.key, key)).limit(1);
  return rows[0]?.bytes ?? null;
}

export async function deleteBlobs(db: Db, keys: readonly string[]): Promise<void> {
  if (keys.length) await db.delete(fileBlobs).where(inArray(fileBlobs.key, [...keys]));
}

/** Keys of the store that no file row holds (an upload that failed between its two writes). */
export async function blobKeysWithoutFiles(db: Db, before: Date): Promise<string[]> {
  const rows = await db
    .select({ key: fileBlobs.key })
    .from(fileBlobs)
    .where(and(lt(fileBlobs.createdAt, before), sql`not exists (select 1 from files f where f.storage_key = ${fileBlobs.key})`));
  return rows.map((r) => r.key);
}
