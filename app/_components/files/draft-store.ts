// The message being written, kept in this browser per conversation so a reload (or a crash)
// loses neither the text nor the files already uploaded for it. Read back through its schema:
// anything else under the key (an older shape, a hand edit) is dropped, never trusted.

import { z } from 'zod';

import { fileViewSchema, type FileView } from './file-view';

export interface StoredDraft {
  text: string;
  files: FileView[];
}

const draftSchema = z.object({ text: z.string(), files: z.array(fileViewSchema) });

const PREFIX = 'switchboard.draft.';

/** The key of a conversation's draft; the new-chat page has one of its own. */
export function draftKey(conversationId: string | undefined): string {
  return `${PREFIX}${conversationId ?? 'new'}`;
}

export function readDraft(storage: Pick<Storage, 'getItem' | 'removeItem'>, key: string): StoredDraft | null {
  let raw: string | null;
  try {
    raw = storage.getItem(key);
  } catch {
    return null; // storage switched off (a private window's policy): no draft, nothing broken
  }
  if (raw === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = null;
  }
  const parsed = draftSchema.safeParse(value);
  if (!parsed.success) {
    storage.removeItem(key);
    return null;
  }
  return parsed.data;
}

/** Saves the draft, or forgets it when there is nothing in it. */
export function writeDraft(storage: Pick<Storage, 'setItem' | 'removeItem'>, key: string, draft: StoredDraft): void {
  try {
    if (!draft.text && draft.files.length === 0) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify({ text: draft.text, files: draft.files }));
  } catch {
    // Full or switched off: the draft still lives in the page, only a reload would lose it.
  }
}
