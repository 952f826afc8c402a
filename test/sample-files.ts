import { crc32, deflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';

/**
 * Real files for tests, built in memory: a valid PNG of any size (a browser renders it), the
 * headers of JPEG, GIF and WebP images, PDFs of n pages, and a multipart upload of any of them.
 */

/** A valid RGB PNG, one flat colour. */
export function png(width: number, height: number, rgb: [number, number, number] = [40, 120, 200]): Uint8Array {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** A PNG of about `bytes` bytes (noise does not compress): for size limits. */
export function bigPng(bytes: number): Uint8Array {
  const head = png(4, 4);
  const out = new Uint8Array(bytes);
  out.set(head.subarray(0, 33)); // signature and IHDR: what the sniffer reads
  for (let i = 33; i < bytes; i++) out[i] = (i * 2654435761) >>> 24;
  return out;
}

/** A JPEG's start: SOI, an APP0 segment, then a baseline frame header (SOF0) with the size. */
export function jpegHeader(width: number, height: number): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
  const sof0 = [
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  return new Uint8Array([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9]);
}

export function gifHeader(width: number, height: number): Uint8Array {
  return new Uint8Array([...Buffer.from('GIF89a'), width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0, 0, 0x3b]);
}

/** A lossless WebP's header (VP8L): 14-bit width-1 and height-1 after the signature byte. */
export function webpHeader(width: number, height: number): Uint8Array {
  const bits = (width - 1) | ((height - 1) << 14);
  const vp8l = Buffer.alloc(5);
  vp8l[0] = 0x2f;
  vp8l.writeUInt32LE(bits >>> 0, 1);
  const chunk = Buffer.concat([Buffer.from('VP8L'), Buffer.from([5, 0, 0, 0]), vp8l, Buffer.alloc(1)]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(4 + chunk.length);
  return new Uint8Array(Buffer.concat([Buffer.from('RIFF'), size, Buffer.from('WEBP'), chunk]));
}

/** A real PDF of `pages` blank pages. */
export async function pdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]);
  return doc.save();
}

export function text(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/** A multipart body with one file in field `file` (or another field), as a browser sends it. */
export function uploadForm(name: string, bytes: Uint8Array, claimedType = 'application/octet-stream', field = 'file'): FormData {
  const form = new FormData();
  form.set(field, new Blob([new Uint8Array(bytes)], { type: claimedType }), name);
  return form;
}
