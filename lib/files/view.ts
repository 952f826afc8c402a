import type { FileRow } from '@/db/queries/files';
import type { FileKind } from '@/db/vocabulary';

/**
 * An uploaded file as the browser sees it: what `POST /api/files` answers and what a message's
 * view lists for the files it carries. Its bytes are at `GET /api/files/:id` for the owner, and
 * at `/api/share/:token/files/:id` in a share that shows files (`fileUrl`, `sharedFileUrl`).
 */
export interface FileView {
  id: string;
  name: string;
  /** Decided from the bytes: image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain; charset=utf-8. */
  mediaType: string;
  /** Bytes. */
  size: number;
  kind: FileKind;
  /** Images: pixels, when the header says. */
  width?: number;
  height?: number;
  /** PDFs. */
  pages?: number;
  createdAt: string;
}

export function toFileView(f: FileRow): FileView {
  return {
    id: f.id,
    name: f.name,
    mediaType: f.mediaType,
    size: f.size,
    kind: f.kind,
    ...(f.width !== null && { width: f.width }),
    ...(f.height !== null && { height: f.height }),
    ...(f.pages !== null && { pages: f.pages }),
    createdAt: f.createdAt.toISOString(),
  };
}

export function fileUrl(id: string): string {
  return `/api/files/${encodeURIComponent(id)}`;
}

export function sharedFileUrl(token: string, id: string): string {
  return `/api/share/${encodeURIComponent(token)}/files/${encodeURIComponent(id)}`;
}

/** A size in words: "812 bytes", "41.3 KB", "7.2 MB" (1 KB = 1,024 bytes, as the limits are set). */
export function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${trim(kb)} KB`;
  const mb = kb / 1024;
  return mb < 1024 ? `${trim(mb)} MB` : `${trim(mb / 1024)} GB`;
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1).replace(/\.0$/, '');
}
