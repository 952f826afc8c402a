/**
 * What a file is, read from its bytes alone: the name and the browser's claimed type are never
 * trusted (an `.png` may hold HTML; a screenshot pasted from the clipboard has no name worth the
 * word). Pure and synchronous, so the upload (lib/files) and the demo model (which must say what
 * it received) read files the same way. A PDF's pages are counted separately (`pdfPageCount`):
 * that needs a parser.
 */

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

export type Sniffed =
  | { kind: 'image'; mediaType: ImageMediaType; width: number | null; height: number | null }
  | { kind: 'pdf'; mediaType: 'application/pdf' }
  | { kind: 'text'; mediaType: 'text/plain; charset=utf-8' }
  | null;

export function sniff(bytes: Uint8Array): Sniffed {
  const image = sniffImage(bytes);
  if (image) return { kind: 'image', ...image, ...imageSize(bytes, image.mediaType) };
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { kind: 'pdf', mediaType: 'application/pdf' }; // %PDF-
  if (isUtf8Text(bytes)) return { kind: 'text', mediaType: 'text/plain; charset=utf-8' };
  return null;
}

/** The kinds in words, for an error that says what is allowed. */
export const ALLOWED_KINDS_WORDS = 'an image (PNG, JPEG, GIF, WebP), a PDF or UTF-8 text';

function sniffImage(b: Uint8Array): { mediaType: ImageMediaType } | null {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { mediaType: 'image/png' };
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { mediaType: 'image/jpeg' };
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return { mediaType: 'image/gif' };
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return { mediaType: 'image/webp' };
  return null;
}

/** Width and height from the image's header; null when the header is cut short or unusual. */
export function imageSize(b: Uint8Array, mediaType: ImageMediaType): { width: number | null; height: number | null } {
  const none = { width: null, height: null };
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const size = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : none);
  switch (mediaType) {
    case 'image/png': // IHDR is the first chunk: width and height, big-endian, at 16 and 20
      return b.length >= 24 && ascii(b, 12, 4) === 'IHDR' ? size(v.getUint32(16), v.getUint32(20)) : none;
    case 'image/gif': // the logical screen, little-endian, at 6 and 8
      return b.length >= 10 ? size(v.getUint16(6, true), v.getUint16(8, true)) : none;
    case 'image/webp':
      return webpSize(b, v) ?? none;
    case 'image/jpeg':
      return jpegSize(b, v) ?? none;
  }
}

function webpSize(b: Uint8Array, v: DataView): { width: number; height: number } | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8X' && b.length >= 30) {
    const u24 = (at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  if (chunk === 'VP8 ' && b.length >= 30) return { width: v.getUint16(26, true) & 0x3fff, height: v.getUint16(28, true) & 0x3fff };
  if (chunk === 'VP8L' && b.length >= 25 && b[20] === 0x2f) {
    const bits = v.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return null;
}

/** Walks the JPEG's segments to the first start-of-frame marker (SOF0–SOF15 but DHT, JPG, DAC). */
function jpegSize(b: Uint8Array, v: DataView): { width: number; height: number } | null {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2; // markers without a length
      continue;
    }
    const length = v.getUint16(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: v.getUint16(at + 5), width: v.getUint16(at + 7) };
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image, start of scan: no frame header before
    at += 2 + length;
  }
  return null;
}

/**
 * Text is valid UTF-8 with no NUL byte (binary formats nearly always hold one; text never needs
 * one). A UTF-8 byte-order mark is allowed. Empty bytes are not text: there is nothing to send.
 */
export function isUtf8Text(b: Uint8Array): boolean {
  if (b.length === 0 || b.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/**
 * A PDF's pages, by pdf-lib's parser (object streams and cross-reference streams included, which
 * counting `/Type /Page` in the bytes would miss). null when the file does not parse as a PDF.
 */
export async function pdfPageCount(bytes: Uint8Array): Promise<number | null> {
  const { PDFDocument } = await import('pdf-lib');
  try {
    const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
    return doc.getPageCount();
  } catch {
    return null;
  }
}

function startsWith(b: Uint8Array, prefix: number[]): boolean {
  return b.length >= prefix.length && prefix.every((x, i) => b[i] === x);
}

function ascii(b: Uint8Array, at: number, n: number): string {
  return b.length >= at + n ? String.fromCharCode(...b.subarray(at, at + n)) : '';
}
