import type Anthropic from '@anthropic-ai/sdk';

import type { StoredMessageContent } from './stored-json';
import type { FileKind } from './vocabulary';

/**
 * How a stored message refers to an uploaded file: a block in the Messages API's own shape for a
 * file by reference — `{ type: 'image' | 'document', source: { type: 'file', file_id } }`, with
 * our file's id — so the stored content stays a valid list of content blocks, small, and never a
 * copy of the bytes. The engine resolves these to base64 or text when it builds a request
 * (lib/agent/context/file-blocks.ts); nothing sends them as they are.
 */
export function fileRefBlock(file: { id: string; kind: FileKind; name: string }): Anthropic.ContentBlockParam {
  const source = { type: 'file' as const, file_id: file.id };
  return file.kind === 'image' ? { type: 'image', source } : { type: 'document', source, title: file.name };
}

/** The file id a block refers to, or null for any other block. */
export function fileRefOf(block: Anthropic.ContentBlockParam): string | null {
  if (block.type !== 'image' && block.type !== 'document') return null;
  return block.source.type === 'file' ? block.source.file_id : null;
}

/** The ids of the files a message's content refers to, in order, each once. */
export function fileRefIds(content: StoredMessageContent): string[] {
  const ids: string[] = [];
  for (const b of content) {
    const id = fileRefOf(b);
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * The `context` of a text file's document block: it tells the model (and the demo model, which
 * says what it received) that the person attached it, unlike a server's resource.
 */
export const FILE_DOCUMENT_CONTEXT = 'A file the person attached to their message.';
