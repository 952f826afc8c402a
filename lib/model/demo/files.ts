import { FILE_DOCUMENT_CONTEXT } from '@/db/file-refs';
import { IMAGE_MEDIA_TYPES, imageSize, pdfPageCount, type ImageMediaType } from '@/lib/file-bytes';

import type { RequestMessage } from './types';

/**
 * The demo model says what files it received in the last user message — "an image, 640×480",
 * "a PDF of 3 pages", "a text file notes.md" — read from the blocks as the API would get them
 * (base64 bytes, a text document), so a test offline can tell each file reached the model as the
 * right block. Async: a PDF's pages take a parser.
 */
export async function receivedFiles(messages: RequestMessage[]): Promise<string[]> {
  const last = messages.at(-1);
  if (!last || last.role !== 'user' || typeof last.content === 'string') return [];
  const said: string[] = [];
  for (const block of last.content) {
    const source = block.source as { type?: string; media_type?: string; data?: string } | undefined;
    if (block.type === 'image' && source?.type === 'base64' && typeof source.data === 'string') {
      const mediaType = source.media_type as ImageMediaType;
      const size = IMAGE_MEDIA_TYPES.includes(mediaType) ? imageSize(Buffer.from(source.data, 'base64'), mediaType) : null;
      said.push(size?.width && size.height ? `an image, ${size.width}×${size.height}` : 'an image');
    } else if (block.type === 'document' && source?.type === 'base64' && source.media_type === 'application/pdf') {
      const pages = await pdfPageCount(Buffer.from(source.data ?? '', 'base64'));
      said.push(pages === null ? 'a PDF I could not open' : `a PDF of ${pages} ${pages === 1 ? 'page' : 'pages'}`);
    } else if (block.type === 'document' && source?.type === 'text' && block.context === FILE_DOCUMENT_CONTEXT) {
      const firstLine =
        (source.data ?? '')
          .split('\n')
          .find((l) => l.trim())
          ?.trim()
          .slice(0, 200) ?? '';
      said.push(`a text file ${String(block.title ?? 'untitled')}${firstLine ? ` that begins “${firstLine}”` : ''}`);
    }
  }
  return said;
}

/** The answer about them, or null when the message carried no file. */
export function describeFiles(files: string[], userText: string): string | null {
  if (files.length === 0) return null;
  const lines = [
    `This is the offline demo model. I received ${files.length === 1 ? 'a file' : `${files.length} files`}:`,
    '',
    ...files.map((f) => `- ${f}`),
  ];
  if (userText.trim()) lines.push('', `You wrote: "${userText.trim()}"`);
  return lines.join('\n');
}
