import type { FileRow } from '@/db/queries/files';

/**
 * The answer that serves a file's bytes, to its owner or through a share. Nothing in it may run:
 * the type is the one read from the bytes at upload (only images, PDFs and text are accepted, so
 * an SVG or HTML never is), the browser is told not to guess another (`nosniff`), and the CSP
 * allows nothing and sandboxes the document, should a browser render it as a page anyway. Images
 * and PDFs open in the browser; text downloads (a `.html` sent as text still must not render).
 * Private: a shared cache never keeps a person's file.
 */
export function fileResponse(file: FileRow, bytes: Uint8Array, opts: { cache: 'private' | 'no-store' } = { cache: 'private' }): Response {
  const inline = file.kind === 'image' || file.kind === 'pdf';
  return new Response(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), {
    status: 200,
    headers: {
      'Content-Type': file.mediaType,
      'Content-Length': String(bytes.byteLength),
      'Content-Disposition': contentDisposition(inline ? 'inline' : 'attachment', file.name),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Cache-Control': opts.cache === 'private' ? 'private, max-age=3600' : 'no-store',
    },
  });
}

/**
 * RFC 6266: an ASCII fallback name (quotes, backslashes and anything outside printable ASCII
 * replaced) and the real name as RFC 5987 `filename*` for browsers that read it (all do).
 */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
