// What the browser knows of an uploaded file and the words it is described with. No React here:
// file-view.test.ts covers it.

import { z } from 'zod';

import { FILE_KINDS } from '@/db/vocabulary';
import { fileUrl, sharedFileUrl, sizeWords, type FileView } from '@/lib/files/view';
import { LIMIT_TABLE } from '@/lib/limits';

export type { FileView } from '@/lib/files/view';

/** What the browser reads back from an upload's answer and from its kept draft (lib/files/view.ts declares it). */
export const fileViewSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  mediaType: z.string(),
  size: z.number().int().nonnegative(),
  kind: z.enum(FILE_KINDS),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  pages: z.number().int().positive().optional(),
  createdAt: z.string(),
}) satisfies z.ZodType<FileView>;

/** Where a file's bytes are read: the owner's `/api/files/:id`, or a share's own URL on a shared page. */
export type FileHref = (fileId: string) => string;

export const ownFileHref: FileHref = fileUrl;

export function sharedFileHref(token: string, fileId: string): string {
  return sharedFileUrl(token, fileId);
}

/** 7.2 MB, 41.3 KB, 812 bytes: in the units the server's limits and errors use. */
export const formatBytes = sizeWords;

/** The line under a file's name: "PDF · 3 pages · 1.2 MB", "PNG · 640×480 · 12 KB". */
export function fileDetails(file: FileView): string {
  const parts = [typeLabel(file)];
  if (file.kind === 'image' && file.width && file.height) parts.push(`${file.width}×${file.height}`);
  if (file.kind === 'pdf' && file.pages) parts.push(`${file.pages} ${file.pages === 1 ? 'page' : 'pages'}`);
  parts.push(formatBytes(file.size));
  return parts.join(' · ');
}

function typeLabel(file: FileView): string {
  if (file.kind === 'pdf') return 'PDF';
  if (file.kind === 'image') return file.mediaType.replace(/^image\//, '').toUpperCase();
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(file.name)?.[1];
  return extension ? extension.toUpperCase() : 'Text';
}

/** How many files one message may carry; checked here first so the 11th is refused at once (the server decides). */
export const FILES_PER_MESSAGE = LIMIT_TABLE.filesPerMessage.default;
