import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { FileRow } from '@/db/queries/files';

import { fileResponse } from './serve';

/**
 * An uploaded SVG or HTML page never runs, checked in Chromium. The upload refuses them as images
 * (their bytes are text), so they are served as text to download; and should a file ever be
 * served under an active type, the CSP (`default-src 'none'; sandbox`) still runs nothing. Each
 * payload's script would call back to the server (`/ran`): nothing may reach it, whether the file
 * is opened directly, framed, or embedded as an image or object.
 */
const PAYLOAD_SVG = (base: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" onload="fetch('${base}/ran?svg-onload')"><script>fetch('${base}/ran?svg')</script><circle r="5"/></svg>`;
const PAYLOAD_HTML = (base: string) =>
  `<html><body><img src=x onerror="fetch('${base}/ran?html-onerror')">` +
  `<script>fetch('${base}/ran?html');top.ran=true</script>hi</body></html>`;

const row = (name: string, mediaType: string, kind: FileRow['kind']): FileRow => ({
  id: crypto.randomUUID(),
  userId: crypto.randomUUID(),
  name,
  kind,
  mediaType,
  size: 0,
  sha256: '',
  storageKey: '',
  width: null,
  height: null,
  pages: null,
  createdAt: new Date(),
});

describe('served files run nothing in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let base = '';
  const ran: string[] = [];
  /** path → the file as served: as stored (text) and, defensively, as if stored under an active type. */
  const files = new Map<string, { file: FileRow; text: (base: string) => string }>([
    ['/svg-as-stored', { file: row('evil.svg', 'text/plain; charset=utf-8', 'text'), text: PAYLOAD_SVG }],
    ['/html-as-stored', { file: row('evil.html', 'text/plain; charset=utf-8', 'text'), text: PAYLOAD_HTML }],
    ['/svg-as-image', { file: row('evil.svg', 'image/svg+xml', 'image'), text: PAYLOAD_SVG }],
    ['/html-as-page', { file: row('evil.html', 'text/html', 'image'), text: PAYLOAD_HTML }],
  ]);

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? '/';
      if (url.startsWith('/ran')) {
        ran.push(url);
        res.end();
        return;
      }
      if (url === '/embedder') {
        res.setHeader('content-type', 'text/html');
        res.end(
          [...files.keys()]
            .map((p) => `<iframe src="${p}"></iframe><img src="${p}"><object data="${p}"></object><embed src="${p}">`)
            .join('\n'),
        );
        return;
      }
      const entry = files.get(url);
      if (!entry) {
        res.statusCode = 404;
        res.end();
        return;
      }
      const served = fileResponse(entry.file, new TextEncoder().encode(entry.text(base)));
      res.statusCode = served.status;
      served.headers.forEach((v, k) => res.setHeader(k, v));
      void served.arrayBuffer().then((b) => res.end(Buffer.from(b)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('opened directly, framed or embedded: no script of the file runs', async () => {
    const page = await browser.newPage({ acceptDownloads: true });
    const dialogs: string[] = [];
    page.on('dialog', (d) => void dialogs.push(d.message()));
    // Opened directly: the stored kinds download (no page to render); the active types render sandboxed.
    for (const path of ['/svg-as-image', '/html-as-page']) {
      await page.goto(`${base}${path}`, { waitUntil: 'load' });
      expect(await page.evaluate(() => (window as { ran?: boolean }).ran ?? false)).toBe(false);
    }
    for (const path of ['/svg-as-stored', '/html-as-stored']) {
      const download = page.waitForEvent('download');
      await page.goto(`${base}${path}`).catch(() => {}); // "Download is starting"
      expect((await download).suggestedFilename()).toMatch(/^evil\.(svg|html)$/);
    }
    await page.goto(`${base}/embedder`, { waitUntil: 'load' });
    expect(await page.evaluate(() => (window as { ran?: boolean }).ran ?? false)).toBe(false);
    // A last request through the same server: everything the page loaded before it was served first.
    await page.evaluate(async (u) => fetch(u), `${base}/embedder`);
    expect(ran).toEqual([]);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
