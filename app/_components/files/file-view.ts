// What the browser knows of an uploaded file and the words it is described with. No React here:
// file-view.test.ts covers it.

import { z } from 'zod';

/** `POST /api/files` answers `{file}` with this; a message view carries its files the same way. */
export const fileViewSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  mediaType: z.string(),
  size: z.number().int().nonnegative(),
  kind: z.enum(['image', 'pdf', 'text']),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  pages: z.number().int().positive().optional(),
  createdAt: z.string(),
});
export type FileView = z.infer<typeof fileViewSchema>;

/** Where a file's bytes are read: the owner's `/api/files/:id`, or a share's own URL on a shared page. */
export type FileHref = (fileId: string) => string;

export const ownFileHref: FileHref = (fileId) => `/api/files/${encodeURIComponent(fileId)}`;

export function sharedFileHref(token: string, fileId: string): string {
  return `/api/share/${encodeURIComponent(token)}/files/${encodeURIComponent(fileId)}`;
}

/** 1.2 MB, 340 KB, 12 bytes: decimal units, as file managers show them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

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
export const FILES_PER_MESSAGE = 10;
