import { expect, test, type Page } from '@playwright/test';
import { PDFDocument } from 'pdf-lib';

import { appOrigin, jsonWrite, signedInUser, waitForConversation, waitForIdle } from './helpers';

// Files in the composer and the conversation, in Chromium: an image pasted from the clipboard, a
// PDF chosen with the button, a text file dropped on the composer; what the server refuses comes
// back naming the file and the limit, and nothing else of the draft is lost; the draft and its
// files survive a reload; the message shows them, the demo model says what it received; an
// uploaded SVG or HTML comes back as inert text. Every fixture is made here, none is in the repo.

/** A 640×480 PNG drawn on a canvas, pasted into the composer as a screenshot would be. */
async function pasteScreenshot(page: Page) {
  await page.locator('#composer').evaluate(async (textarea) => {
    const canvas = document.createElement('canvas');
    canvas.width = 640;
    canvas.height = 480;
    const g = canvas.getContext('2d')!;
    g.fillStyle = '#4f46e5';
    g.fillRect(0, 0, 640, 480);
    g.fillStyle = '#fff';
    g.font = '48px sans-serif';
    g.fillText('screenshot', 180, 260);
    const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
    const data = new DataTransfer();
    data.items.add(new File([blob], 'image.png', { type: 'image/png' }));
    textarea.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
}

async function threePagePdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  for (let i = 0; i < 3; i++) pdf.addPage([595, 842]).drawText(`Page ${i + 1} of the report`, { x: 72, y: 760, size: 18 });
  return Buffer.from(await pdf.save());
}

/** Chooses files with the composer's Attach button, through the browser's file chooser. */
async function attachWithButton(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach files' }).click();
  await (await chooser).setFiles(files);
}

const text = (name: string, body: string) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(body) });

test('files: paste, choose and drop files, errors that name the file, a kept draft, the message and the answer', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'files');
  await page.goto('/');

  const composer = page.locator('#composer');
  const draftFiles = page.getByTestId('draft-file');
  const ready = page.locator('[data-testid="draft-file"][data-status="ready"]');
  const problems = page.getByTestId('file-problems');
  const send = page.getByRole('button', { name: 'Send' });

  await test.step('an image by paste, a PDF by the button, a text file by drop', async () => {
    await composer.fill('Here are my files.');
    await pasteScreenshot(page);
    await attachWithButton(page, [{ name: 'report.pdf', mimeType: 'application/pdf', buffer: await threePagePdf() }]);

    const box = page.getByTestId('composer-box');
    const dataTransfer = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['# Notes\n\n- buy milk\n- ship the files feature\n'], 'notes.md', { type: 'text/markdown' }));
      return data;
    });
    await box.dispatchEvent('dragenter', { dataTransfer });
    await expect(page.getByTestId('drop-target')).toHaveText('Drop files to attach them');
    await box.dispatchEvent('dragover', { dataTransfer });
    await box.dispatchEvent('drop', { dataTransfer });
    await expect(page.getByTestId('drop-target')).toHaveCount(0);

    await expect(ready).toHaveCount(3);
    await expect(page.getByRole('img', { name: 'image.png' })).toBeVisible();
    await expect(draftFiles.filter({ hasText: 'report.pdf' })).toContainText('3 pages');
    await expect(draftFiles.filter({ hasText: 'notes.md' })).toBeVisible();
    await expect(send).toBeEnabled();
  });

  await test.step('an oversize file and bytes of no allowed type are refused by name; the rest stays', async () => {
    await attachWithButton(page, [
      text('huge.txt', 'a'.repeat(1024 * 1024 + 1)),
      { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0xff, 0xfe, 0x00, 0x81]) },
    ]);
    await expect(problems.getByRole('alert')).toHaveCount(2);
    await expect(problems).toContainText(/huge\.txt.*1 MB/);
    await expect(problems).toContainText(/photo\.png.*an image \(PNG, JPEG, GIF, WebP\), a PDF or UTF-8 text/);
    await expect(ready).toHaveCount(3);
    await expect(composer).toHaveValue('Here are my files.');
  });

  await test.step('a reload keeps the draft and its files', async () => {
    await page.reload();
    await expect(composer).toHaveValue('Here are my files.');
    await expect(ready).toHaveCount(3);
    await expect(page.getByRole('img', { name: 'image.png' })).toBeVisible();
  });

  let conversationId = '';
  await test.step('sent: thumbnails and chips in the message, and the model names what it got', async () => {
    await send.click();
    conversationId = await waitForConversation(page);
    const message = page.getByTestId('user-message');
    await expect(message).toContainText('Here are my files.');
    await expect(message.getByTestId('message-image')).toHaveCount(1);
    await expect(message.getByRole('img', { name: 'image.png' })).toBeVisible();
    await expect(message.getByRole('link', { name: /report\.pdf.*3 pages/ })).toHaveAttribute('href', /^\/api\/files\//);
    await expect(message.getByRole('link', { name: /notes\.md/ })).toBeVisible();
    const answer = page.getByTestId('assistant-message');
    await expect(answer).toContainText('a text file notes.md', { timeout: 20_000 });
    await waitForIdle(page.request, conversationId);
    await expect(answer).toContainText('an image, 640×480');
    await expect(answer).toContainText('a PDF of 3 pages');
    await expect(answer).toContainText('a text file notes.md');
    await expect(ready).toHaveCount(0);
    await expect(composer).toHaveValue('');
  });

  await test.step('a thumbnail opens full size; Escape closes it and the focus goes back', async () => {
    const thumbnail = page.getByRole('button', { name: 'Open image.png full size' });
    await thumbnail.click();
    const lightbox = page.getByRole('dialog', { name: 'image.png' });
    await expect(lightbox).toBeVisible();
    await expect(lightbox).toContainText('640×480');
    await expect.poll(() => lightbox.getByTestId('lightbox-image').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(640);
    await page.keyboard.press('Escape');
    await expect(lightbox).toBeHidden();
    await expect(thumbnail).toBeFocused();
  });

  await test.step('the eleventh file is refused at once, naming it; the ten and the text stay', async () => {
    await composer.fill('Eleven files');
    await attachWithButton(
      page,
      Array.from({ length: 11 }, (_, i) => text(`part-${i + 1}.txt`, `part ${i + 1}`)),
    );
    await expect(problems.getByRole('alert')).toHaveCount(1);
    await expect(problems).toContainText('part-11.txt was not attached: a message can carry at most 10 files.');
    await expect(ready).toHaveCount(10);
    await expect(composer).toHaveValue('Eleven files');
    // A reload after sending kept nothing of the sent draft, and keeps this one.
    await page.reload();
    await expect(ready).toHaveCount(10);
    await expect(composer).toHaveValue('Eleven files');
  });

  await test.step('a share shows the files only when it includes them, read through the link, never the owner’s URL', async () => {
    await waitForIdle(page.request, conversationId);
    const share = async (includeFiles: boolean) => {
      const res = await page.request.post(`/api/conversations/${conversationId}/shares`, {
        headers: jsonWrite(origin),
        data: { includeFiles },
      });
      expect(res.status(), await res.text()).toBe(201);
      return new URL(((await res.json()) as { url: string }).url).pathname;
    };
    await page.goto(await share(false));
    await expect(page.getByTestId('files-hidden')).toHaveText('3 attached files are not shared.');
    await expect(page.getByTestId('message-files')).toHaveCount(0);
    expect(await page.content()).not.toContain('/api/files/');

    const path = await share(true);
    await page.goto(path);
    const token = path.slice('/share/'.length);
    const shared = page.getByTestId('user-message');
    await expect(shared.getByRole('img', { name: 'image.png' })).toHaveAttribute('src', new RegExp(`^/api/share/${token}/files/`));
    await expect(shared.getByRole('link', { name: /report\.pdf/ })).toHaveAttribute('href', new RegExp(`^/api/share/${token}/files/`));
    await expect.poll(() => shared.getByRole('img', { name: 'image.png' }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(640);
    expect(await page.content()).not.toContain('/api/files/');
    await page.goto(`/c/${conversationId}`);
  });

  await test.step('an SVG or HTML file comes back as inert text: nosniff, a CSP that runs nothing, a download', async () => {
    const script = '<script>parent.postMessage("ran", "*")</script>';
    for (const [name, body] of [
      ['drawing.svg', `<svg xmlns="http://www.w3.org/2000/svg" onload="parent.postMessage('ran','*')">${script}</svg>`],
      ['page.html', `<!doctype html><title>x</title>${script}`],
    ] as const) {
      const res = await page.request.post('/api/files', {
        headers: { Origin: origin },
        multipart: { file: { name, mimeType: name.endsWith('.svg') ? 'image/svg+xml' : 'text/html', buffer: Buffer.from(body) } },
      });
      expect(res.status(), await res.text()).toBe(201);
      const { file } = (await res.json()) as { file: { id: string; mediaType: string } };
      expect(file.mediaType).toBe('text/plain; charset=utf-8');
      const served = await page.request.get(`/api/files/${file.id}`);
      expect(served.status()).toBe(200);
      const headers = served.headers();
      expect(headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['content-security-policy']).toContain("default-src 'none'");
      expect(headers['content-security-policy']).toContain('sandbox');
      expect(headers['content-disposition']).toMatch(/^attachment;/);
      // As an image, the SVG does not render either: served as text, Chromium refuses to draw it.
      const drawn = await page.evaluate(
        (src) =>
          new Promise<boolean>((resolve) => {
            const img = new Image();
            img.onload = () => resolve(true);
            img.onerror = () => resolve(false);
            img.src = src;
          }),
        `/api/files/${file.id}`,
      );
      expect(drawn).toBe(false);
    }
    expect(conversationId).not.toBe('');
  });
});
