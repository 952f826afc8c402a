import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser } from '@/db/queries/users';
import { fileBlobs } from '@/db/schema';
import type { FileView } from '@/lib/files/view';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';
import { bigPng, gifHeader, jpegHeader, pdf, png, text, uploadForm, webpHeader } from '@/test/sample-files';

/** POST /api/files, GET and DELETE /api/files/:id: upload, the type from the bytes, the limits, serving, ownership. */
describe('/api/files', () => {
  let h: DbHandle;
  let upload: typeof import('./route');
  let one: typeof import('./[id]/route');
  beforeAll(async () => {
    h = await openRouteRuntime('files');
    upload = await import('./route');
    one = await import('./[id]/route');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `f-${Math.random().toString(36).slice(2)}@example.test` }))!;
    return { userId: user.id, cookie: (await sessionCookie(h.db, user.id)).cookie };
  }
  const none = { params: Promise.resolve({}) };
  const at = (id: string) => ({ params: Promise.resolve({ id }) });
  const post = (cookie: string, form: FormData, origin = 'http://localhost') =>
    upload.POST(new Request('http://localhost/api/files', { method: 'POST', headers: { cookie, origin }, body: form }), none);
  const get = (cookie: string, id: string) => one.GET(new Request(`http://localhost/api/files/${id}`, { headers: { cookie } }), at(id));
  const del = (cookie: string, id: string) =>
    one.DELETE(
      new Request(`http://localhost/api/files/${id}`, { method: 'DELETE', headers: { cookie, origin: 'http://localhost' } }),
      at(id),
    );
  async function uploaded(cookie: string, name: string, bytes: Uint8Array, claimed?: string): Promise<FileView> {
    const res = await post(cookie, uploadForm(name, bytes, claimed));
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { file: FileView }).file;
  }
  async function refused(cookie: string, name: string, bytes: Uint8Array, claimed?: string) {
    const res = await post(cookie, uploadForm(name, bytes, claimed));
    return { status: res.status, error: ((await res.json()) as { error: { code: string; message: string; field?: string } }).error };
  }

  it('decides the kind from the bytes, with the size of an image and the pages of a PDF', async () => {
    const { cookie } = await signedIn();
    // The name and the claimed type say JPEG; the bytes are a PNG.
    const image = await uploaded(cookie, 'photo.jpg', png(640, 480), 'image/jpeg');
    expect(image).toMatchObject({ name: 'photo.jpg', kind: 'image', mediaType: 'image/png', width: 640, height: 480 });
    expect(image.size).toBeGreaterThan(0);
    expect(await uploaded(cookie, 'a.jpeg', jpegHeader(1024, 768))).toMatchObject({ mediaType: 'image/jpeg', width: 1024, height: 768 });
    expect(await uploaded(cookie, 'a.gif', gifHeader(32, 16))).toMatchObject({ mediaType: 'image/gif', width: 32, height: 16 });
    expect(await uploaded(cookie, 'a.webp', webpHeader(300, 200))).toMatchObject({ mediaType: 'image/webp', width: 300, height: 200 });
    expect(await uploaded(cookie, 'report.pdf', await pdf(3))).toMatchObject({ kind: 'pdf', mediaType: 'application/pdf', pages: 3 });
    const notes = await uploaded(cookie, 'C:\\Users\\ada\\notes.md', text('# Notes\n\nÉtude — ok\n'), 'text/markdown');
    expect(notes).toMatchObject({ name: 'notes.md', kind: 'text', mediaType: 'text/plain; charset=utf-8' });
    expect(Object.keys(notes).sort()).toEqual(['createdAt', 'id', 'kind', 'mediaType', 'name', 'size']);
  });

  it('refuses bytes of no allowed type, naming the file and what is allowed; SVG and HTML are not images', async () => {
    const { cookie } = await signedIn();
    const exe = await refused(cookie, 'x.exe', new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03]), 'image/png');
    expect(exe).toEqual({
      status: 415,
      error: {
        code: 'unsupported_media_type:file',
        field: 'file',
        message: 'file "x.exe": its bytes are not an image (PNG, JPEG, GIF, WebP), a PDF or UTF-8 text.',
      },
    });
    // An SVG or HTML is text by its bytes: it is stored as text and served as a download, never as a page.
    const svg = await uploaded(
      cookie,
      'evil.svg',
      text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'image/svg+xml',
    );
    expect(svg).toMatchObject({ kind: 'text', mediaType: 'text/plain; charset=utf-8' });
    expect((await refused(cookie, 'latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).status).toBe(415);
    expect((await refused(cookie, 'empty.txt', new Uint8Array())).status).toBe(415);
    expect((await refused(cookie, 'fake.pdf', text('%PDF-1.7 and nothing else'))).error.message).toBe(
      'file "fake.pdf": it begins like a PDF but does not open as one.',
    );
  });

  it('holds each kind to its size limit, and a PDF to its pages', async () => {
    const { cookie } = await signedIn();
    expect(await refused(cookie, 'big.png', bigPng(Math.round(7.2 * 1024 * 1024)))).toEqual({
      status: 413,
      error: { code: 'payload_too_large:file', field: 'file', message: 'file "big.png": images are at most 5 MB (this one is 7.2 MB).' },
    });
    expect((await refused(cookie, 'long.txt', text('a'.repeat(1024 * 1024 + 1)))).error.message).toBe(
      'file "long.txt": text files are at most 1 MB (this one is 1,048,577 bytes).',
    );
    expect((await refused(cookie, 'book.pdf', await pdf(101))).error.message).toBe(
      'file "book.pdf": PDFs are at most 100 pages (this one has 101).',
    );
    const tooBig = await post(cookie, uploadForm('huge.pdf', new Uint8Array(33 * 1024 * 1024)));
    expect(tooBig.status).toBe(413);
  });

  it('keeps the same bytes once per person, and holds them to the stored-bytes limit', async () => {
    const { userId, cookie } = await signedIn();
    const bytes = png(10, 10, [1, 2, 3]);
    const a = await uploaded(cookie, 'a.png', bytes);
    const b = await uploaded(cookie, 'b.png', bytes);
    expect(a.id).not.toBe(b.id);
    const blobs = await h.db.select({ key: fileBlobs.key }).from(fileBlobs);
    expect(blobs.filter((r) => r.key.startsWith(`${userId}/`))).toHaveLength(1);
    // Deleting one keeps the bytes the other still holds.
    expect((await del(cookie, a.id)).status).toBe(204);
    expect(Buffer.from(await (await get(cookie, b.id)).arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

    vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ storedFileBytesPerUser: bytes.length + 10 }));
    try {
      const over = await refused(cookie, 'c.txt', text('more than ten bytes of text'));
      expect(over.status).toBe(429);
      expect(over.error.message).toBe(
        `file "c.txt": your files may take at most ${bytes.length + 10} bytes on the pro plan ` +
          `(${bytes.length} bytes are stored; this one is 27 bytes). Delete conversations with files you no longer need.`,
      );
      // The same bytes again cost nothing.
      await uploaded(cookie, 'again.png', bytes);
    } finally {
      vi.stubEnv('SWITCHBOARD_LIMITS', '');
    }
  });

  it('serves the bytes to their owner only, so that nothing in them runs', async () => {
    const ada = await signedIn();
    const bob = await signedIn();
    const image = await uploaded(ada.cookie, 'résumé "final".png', png(2, 2));
    const res = await get(ada.cookie, image.id);
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'image/png',
      'content-disposition': `inline; filename="r_sum_ _final_.png"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.png`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, max-age=3600',
    });
    const html = await uploaded(ada.cookie, 'page.html', text('<html><script>alert(1)</script></html>'), 'text/html');
    const served = await get(ada.cookie, html.id);
    expect(served.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(served.headers.get('content-disposition')).toMatch(/^attachment; /);

    expect((await get(bob.cookie, image.id)).status).toBe(404);
    expect((await del(bob.cookie, image.id)).status).toBe(404);
    expect((await get(ada.cookie, 'not-a-uuid')).status).toBe(404);
    expect((await get(ada.cookie, crypto.randomUUID())).status).toBe(404);
    expect((await del(ada.cookie, image.id)).status).toBe(204);
    expect((await get(ada.cookie, image.id)).status).toBe(404);
  });

  it('asks for multipart with the field file, from our own origin', async () => {
    const { cookie } = await signedIn();
    const json = await upload.POST(
      new Request('http://localhost/api/files', {
        method: 'POST',
        headers: { cookie, origin: 'http://localhost', 'content-type': 'application/json' },
        body: '{}',
      }),
      none,
    );
    expect(json.status).toBe(415);
    const wrongField = await post(cookie, uploadForm('a.png', png(1, 1), 'image/png', 'upload'));
    expect(((await wrongField.json()) as { error: { message: string } }).error.message).toBe(
      'file: send one file in the form field "file".',
    );
    expect((await post(cookie, uploadForm('a.png', png(1, 1)), 'https://evil.example')).status).toBe(403);
  });
});
