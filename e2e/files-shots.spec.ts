import { expect, test } from '@playwright/test';
import { PDFDocument } from 'pdf-lib';

import { appOrigin, signedInUser, waitForConversation, waitForIdle } from './helpers';

test('files shots', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'shots');
  await page.goto('/');
  const pdf = await PDFDocument.create();
  for (let i = 0; i < 3; i++) pdf.addPage();
  const pdfBytes = Buffer.from(await pdf.save());
  await page.locator('#composer').fill('What do these say?');
  await page.locator('#composer').evaluate(async (textarea) => {
    const canvas = document.createElement('canvas');
    canvas.width = 640;
    canvas.height = 480;
    const g = canvas.getContext('2d')!;
    const grad = g.createLinearGradient(0, 0, 640, 480);
    grad.addColorStop(0, '#4f46e5');
    grad.addColorStop(1, '#f59e0b');
    g.fillStyle = grad;
    g.fillRect(0, 0, 640, 480);
    const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
    const data = new DataTransfer();
    data.items.add(new File([blob], 'image.png', { type: 'image/png' }));
    textarea.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach files' }).click();
  await (await chooser).setFiles([
    { name: 'quarterly-report-2026-final-version.pdf', mimeType: 'application/pdf', buffer: pdfBytes },
    { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# notes') },
    { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0, 1, 2, 0xff, 0xfe]) },
  ]);
  await expect(page.locator('[data-testid="draft-file"][data-status="ready"]')).toHaveCount(3);
  await expect(page.getByTestId('file-problems')).toBeVisible();
  for (const [w, h] of [[1280, 800], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `screenshots/files-composer-${w}-${scheme}.png` });
    }
  }
  // drag state
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  const dt = await page.evaluateHandle(() => { const d = new DataTransfer(); d.items.add(new File(['x'], 'x.txt')); return d; });
  await page.getByTestId('composer-box').dispatchEvent('dragenter', { dataTransfer: dt });
  await page.screenshot({ path: `screenshots/files-drop-1280-light.png` });
  await page.getByTestId('composer-box').dispatchEvent('drop', { dataTransfer: dt });
  await expect(page.locator('[data-testid="draft-file"][data-status="ready"]')).toHaveCount(4);
  await page.getByRole('button', { name: 'Send' }).click();
  const id = await waitForConversation(page);
  await waitForIdle(page.request, id);
  await expect(page.getByTestId('assistant-message')).toBeVisible();
  for (const [w, h] of [[1280, 800], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `screenshots/files-message-${w}-${scheme}.png` });
      await page.getByTestId('message-image').click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await page.screenshot({ path: `screenshots/files-lightbox-${w}-${scheme}.png` });
      await page.keyboard.press('Escape');
    }
  }
});
