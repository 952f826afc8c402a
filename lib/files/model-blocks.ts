import type Anthropic from '@anthropic-ai/sdk';

import { FILE_DOCUMENT_CONTEXT } from '@/db/file-refs';
import { listFilesByIds, type FileRow } from '@/db/queries/files';

import type { FileDeps } from './service';

/** What the engine's FileSource answers (lib/agent/context/file-blocks.ts), named here without depending on the engine. */
export interface ModelFileBlock {
  block: Anthropic.ContentBlockParam;
  tokens: number;
}

/**
 * The engine's view of the person's files: the model blocks for these ids — images as base64
 * image blocks, PDFs as base64 PDF documents, text as a text document titled with the file's
 * name — from one read of the rows and one read of each file's bytes.
 */
export function modelFileSource(deps: FileDeps) {
  return {
    async modelBlocks(userId: string, ids: readonly string[]): Promise<Map<string, ModelFileBlock>> {
      const out = new Map<string, ModelFileBlock>();
      const rows = await listFilesByIds(deps.db, userId, ids);
      await Promise.all(
        rows.map(async (f) => {
          const bytes = await deps.storage.get(f.storageKey);
          if (bytes) out.set(f.id, { block: modelBlock(f, bytes), tokens: modelTokens(f, bytes.length) });
        }),
      );
      return out;
    },
  };
}

export function modelBlock(f: FileRow, bytes: Uint8Array): Anthropic.ContentBlockParam {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (f.kind === 'image') {
    return {
      type: 'image',
      source: { type: 'base64', media_type: f.mediaType as Anthropic.Base64ImageSource['media_type'], data: data.toString('base64') },
    };
  }
  if (f.kind === 'pdf') {
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data.toString('base64') }, title: f.name };
  }
  return {
    type: 'document',
    source: { type: 'text', media_type: 'text/plain', data: data.toString('utf8') },
    title: f.name,
    context: FILE_DOCUMENT_CONTEXT,
  };
}

/**
 * What a file costs the model, roughly: an image by its pixels (about w×h/750 tokens, the API
 * scales large ones down to about 1,600), a PDF by its pages (text and a picture of each page),
 * text by its length. Base64's length would overstate images and PDFs many times over.
 */
function modelTokens(f: FileRow, size: number): number {
  if (f.kind === 'image') return f.width && f.height ? Math.min(1600, Math.ceil((f.width * f.height) / 750)) : 1600;
  if (f.kind === 'pdf') return (f.pages ?? 1) * 2000;
  return Math.ceil(size / 4) + 50;
}
