import type { Db } from '@/db/connection';
import { fileRefBlock } from '@/db/file-refs';
import { listFilesByIds, type FileRow } from '@/db/queries/files';
import { getUserPlan } from '@/db/queries/users';
import type { StoredMessageContent } from '@/db/stored-json';
import { AppError } from '@/lib/http/errors';
import { limitsFor } from '@/lib/limits';

import type { AttachmentRef, FileRef } from './compose';

/** The `{ fileId }` entries of a message's attachments, with where each stood (for the error's field). */
export function fileRefsOf(attachments: AttachmentRef[]): { ref: FileRef; at: number }[] {
  return attachments.flatMap((ref, at) => ('fileId' in ref ? [{ ref, at }] : []));
}

/**
 * The person's uploaded files a message carries → the blocks that refer to them, first in the
 * message (the files, then the words about them, as people write). Only their own files, each
 * once, at most `filesPerMessage` of their plan; the bytes are not read here — the engine reads
 * them when it builds a request.
 */
export async function composeFileBlocks(
  db: Db,
  userId: string,
  refs: { ref: FileRef; at: number }[],
): Promise<{ blocks: StoredMessageContent; files: FileRow[] }> {
  if (refs.length === 0) return { blocks: [], files: [] };
  const max = limitsFor(await getUserPlan(db, userId)).filesPerMessage;
  if (refs.length > max) {
    throw new AppError('bad_request', 'body', `attachments: at most ${max} files per message (got ${refs.length})`, 'attachments');
  }
  const found = new Map(
    (
      await listFilesByIds(
        db,
        userId,
        refs.map((r) => r.ref.fileId),
      )
    ).map((f) => [f.id, f]),
  );
  const files: FileRow[] = [];
  for (const { ref, at } of refs) {
    const field = `attachments.${at}.fileId`;
    const file = found.get(ref.fileId);
    if (!file)
      throw new AppError(
        'bad_request',
        'body',
        `${field}: no file of yours with id "${ref.fileId}" (upload it first: POST /api/files)`,
        field,
      );
    if (files.includes(file)) throw new AppError('bad_request', 'body', `${field}: file "${file.name}" is attached twice`, field);
    files.push(file);
  }
  return { blocks: files.map(fileRefBlock), files };
}
