import { createHash } from 'node:crypto';

import type { Db } from '@/db/connection';
import {
  blobKeysWithoutFiles,
  deleteFileRow,
  deleteStaleDraftFiles,
  deleteUnreferencedFiles,
  fileIdsOfConversation,
  getFile,
  insertFile,
  isFileInAMessage,
  isFileInMessagesThrough,
  listFilesByIds,
  listUserFiles,
  storedBytesOf,
  type FileRow,
} from '@/db/queries/files';
import { getUserPlan } from '@/db/queries/users';
import { ALLOWED_KINDS_WORDS, pdfPageCount, sniff } from '@/lib/file-bytes';
import { AppError } from '@/lib/http/errors';
import { isPlan, LimitExceeded, limitsFor, type Limits } from '@/lib/limits';

import { fileStorageFor, storageKey, type FileStorage } from './storage';
import { sizeWords, toFileView, type FileView } from './view';

export interface FileDeps {
  db: Db;
  storage: FileStorage;
}

export function fileDeps(db: Db): FileDeps {
  return { db, storage: fileStorageFor(db) };
}

/** The longest name kept (longer ones are cut, keeping the extension). */
export const MAX_FILE_NAME_CHARS = 200;

/**
 * Stores an upload for its owner: its kind from the bytes (never the name or the claimed type),
 * held to the limits of that kind and to what the person may keep, the bytes stored once per
 * content. It belongs to the person as a draft's file until a message refers to it.
 */
export async function uploadFile(deps: FileDeps, userId: string, upload: { name: string; bytes: Uint8Array }): Promise<FileView> {
  const name = cleanName(upload.name);
  const { bytes } = upload;
  const plan = await getUserPlan(deps.db, userId);
  const limits = limitsFor(plan);
  const sniffed = sniff(bytes);
  if (!sniffed) {
    throw new AppError('unsupported_media_type', 'file', `file "${name}": its bytes are not ${ALLOWED_KINDS_WORDS}.`, 'file');
  }
  const max = maxBytes(sniffed.kind, limits);
  if (bytes.length > max) {
    throw new AppError(
      'payload_too_large',
      'file',
      `file "${name}": ${KIND_PLURAL[sniffed.kind]} are at most ${sizeWords(max)} (this one is ${sizeAgainst(bytes.length, max)}).`,
      'file',
    );
  }
  let pages: number | null = null;
  if (sniffed.kind === 'pdf') {
    pages = await pdfPageCount(bytes);
    if (pages === null) {
      throw new AppError('unsupported_media_type', 'file', `file "${name}": it begins like a PDF but does not open as one.`, 'file');
    }
    if (pages > limits.pdfPages) {
      throw new AppError(
        'payload_too_large',
        'file',
        `file "${name}": PDFs are at most ${limits.pdfPages} pages (this one has ${pages}).`,
        'file',
      );
    }
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const key = storageKey(userId, sha256);
  await checkQuota(deps, userId, plan, limits, { name, size: bytes.length, key });
  // Bytes first, then the row: a failure between leaves bytes no row holds, which the sweep removes.
  await deps.storage.put(key, bytes);
  const row = await insertFile(deps.db, {
    userId,
    name,
    kind: sniffed.kind,
    mediaType: sniffed.mediaType,
    size: bytes.length,
    sha256,
    storageKey: key,
    width: sniffed.kind === 'image' ? sniffed.width : null,
    height: sniffed.kind === 'image' ? sniffed.height : null,
    pages,
  });
  return toFileView(row);
}

/** The size in words, in bytes when the words would read the same as the limit's ("1 MB" for 1 MB and a byte). */
function sizeAgainst(size: number, limit: number): string {
  return sizeWords(size) === sizeWords(limit) ? `${size.toLocaleString('en')} bytes` : sizeWords(size);
}

const KIND_PLURAL = { image: 'images', pdf: 'PDFs', text: 'text files' } as const;

function maxBytes(kind: FileRow['kind'], limits: Limits): number {
  return kind === 'image' ? limits.imageBytes : kind === 'pdf' ? limits.pdfBytes : limits.textFileBytes;
}

/** The largest upload any kind allows under the defaults and the plans: the body's own cap. */
export function maxUploadBytes(plan: string | null = null): number {
  const l = limitsFor(plan);
  return Math.max(l.imageBytes, l.pdfBytes, l.textFileBytes);
}

/** Bytes already stored under the same key cost nothing more (the same content uploaded again). */
async function checkQuota(
  deps: FileDeps,
  userId: string,
  plan: string | null,
  limits: Limits,
  file: { name: string; size: number; key: string },
): Promise<void> {
  const stored = await storedBytesOf(deps.db, userId);
  if (stored + file.size <= limits.storedFileBytesPerUser) return;
  if (await deps.storage.get(file.key)) return;
  const onPlan = isPlan(plan) ? ` on the ${plan} plan` : '';
  throw new LimitExceeded(
    'storedFileBytesPerUser',
    limits.storedFileBytesPerUser,
    `file "${file.name}": your files may take at most ${sizeWords(limits.storedFileBytesPerUser)}${onPlan} ` +
      `(${sizeWords(stored)} are stored; this one is ${sizeWords(file.size)}). Delete conversations with files you no longer need.`,
    isPlan(plan) ? plan : null,
  );
}

function notFound(id: string): AppError {
  return new AppError('not_found', 'file', `No file with id "${id}".`);
}

/** The file and its bytes, for its owner only (anyone else: not found). */
export async function readOwnFile(deps: FileDeps, userId: string, id: string): Promise<{ file: FileRow; bytes: Uint8Array }> {
  const file = await getFile(deps.db, userId, id);
  const bytes = file && (await deps.storage.get(file.storageKey));
  if (!file || !bytes) throw notFound(id);
  return { file, bytes };
}

/**
 * Deletes a draft's file. A file a sent message refers to stays: the conversation's history
 * (what the model was sent, what a share shows) must not lose part of a message; it goes with
 * its conversation (`deleteConversationFiles`).
 */
export async function deleteOwnFile(deps: FileDeps, userId: string, id: string): Promise<void> {
  const file = await getFile(deps.db, userId, id);
  if (!file) throw notFound(id);
  if (await isFileInAMessage(deps.db, userId, id)) {
    throw new AppError(
      'conflict',
      'file',
      `file "${file.name}": it is part of a sent message, so it is kept with its conversation (deleting the conversation deletes it).`,
    );
  }
  const gone = await deleteFileRow(deps.db, userId, id);
  if (gone?.orphanKey) await deps.storage.delete([gone.orphanKey]);
}

/**
 * Before a conversation is deleted: the ids of the files its messages refer to. After it is
 * deleted, `deleteConversationFiles` removes those no other message of the person refers to.
 */
export function filesOfConversation(deps: FileDeps, conversationId: string): Promise<string[]> {
  return fileIdsOfConversation(deps.db, conversationId);
}

/**
 * Every file of the person for their data export: what the page shows of it, its hash, and its
 * bytes as base64 (the export is one JSON document). A message refers to a file by its id.
 */
export async function exportFiles(deps: FileDeps, userId: string) {
  const rows = await listUserFiles(deps.db, userId);
  return Promise.all(
    rows.map(async (f) => {
      const bytes = await deps.storage.get(f.storageKey);
      return { ...toFileView(f), sha256: f.sha256, base64: bytes ? Buffer.from(bytes).toString('base64') : null };
    }),
  );
}

/**
 * Copies files of one person to another (a fork of a share that shows files): new rows of the
 * reader's, the bytes stored again under the reader's key, so nothing of the copy depends on the
 * owner's account (deleting it leaves the fork whole). Returns the new id of each copied file.
 */
export async function copyFiles(
  deps: FileDeps,
  fromUserId: string,
  toUserId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const copied = new Map<string, string>();
  for (const f of await listFilesByIds(deps.db, fromUserId, ids)) {
    const bytes = await deps.storage.get(f.storageKey);
    if (!bytes) continue;
    const key = storageKey(toUserId, f.sha256);
    await deps.storage.put(key, bytes);
    const row = await insertFile(deps.db, {
      userId: toUserId,
      name: f.name,
      kind: f.kind,
      mediaType: f.mediaType,
      size: f.size,
      sha256: f.sha256,
      storageKey: key,
      width: f.width,
      height: f.height,
      pages: f.pages,
    });
    copied.set(f.id, row.id);
  }
  return copied;
}

/** A file a share shows, with its bytes: it must be in a message of the snapshot (the caller checked the link). */
export async function readSharedFile(
  deps: FileDeps,
  link: { userId: string; conversationId: string; snapshotSeq: number },
  fileId: string,
): Promise<{ file: FileRow; bytes: Uint8Array }> {
  if (!(await isFileInMessagesThrough(deps.db, link.conversationId, link.snapshotSeq, fileId))) throw notFound(fileId);
  return readOwnFile(deps, link.userId, fileId);
}

/** Everything the person stored: the rows go with the account (they cascade); the bytes are deleted here. */
export async function deleteAllFilesOf(deps: FileDeps, userId: string): Promise<void> {
  const keys = [...new Set((await listUserFiles(deps.db, userId)).map((f) => f.storageKey))];
  await deps.storage.delete(keys);
}

/** A draft's files are the person's for a day: older ones no message refers to are deleted (the sweep). */
export const DRAFT_FILE_KEPT_MS = 24 * 60 * 60 * 1000;

/** The sweep: stale drafts' files, and bytes no file row holds (an upload that failed between its two writes). */
export async function sweepFiles(deps: FileDeps, now: Date): Promise<{ draftFiles: number; orphanBlobs: number }> {
  const before = new Date(now.getTime() - DRAFT_FILE_KEPT_MS);
  const drafts = await deleteStaleDraftFiles(deps.db, before);
  await deps.storage.delete(drafts.orphanKeys);
  // Bytes put in the last hour may belong to an upload still writing its row.
  const orphans = await blobKeysWithoutFiles(deps.db, new Date(now.getTime() - 60 * 60 * 1000));
  await deps.storage.delete(orphans);
  return { draftFiles: drafts.deleted, orphanBlobs: orphans.length };
}

export async function deleteConversationFiles(deps: FileDeps, userId: string, fileIds: readonly string[]): Promise<void> {
  const orphanKeys = await deleteUnreferencedFiles(deps.db, userId, fileIds);
  await deps.storage.delete(orphanKeys);
}

/**
 * A name to show and to serve under: the last path segment (some browsers send a path), control
 * characters out, at most MAX_FILE_NAME_CHARS (the extension kept). Never decides the type.
 */
export function cleanName(raw: string): string {
  const base = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (!base) return 'file';
  if (base.length <= MAX_FILE_NAME_CHARS) return base;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 && base.length - dot <= 12 ? base.slice(dot) : '';
  return base.slice(0, MAX_FILE_NAME_CHARS - ext.length) + ext;
}
