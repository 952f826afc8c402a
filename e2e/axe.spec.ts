import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

import {
  appOrigin,
  conversationWithTools,
  DEMO_CLOSING,
  jsonWrite,
  newUser,
  sendWithEnter,
  signedInUser,
  signInViaApi,
  signUpViaApi,
  waitForConversation,
  waitForIdle,
} from './helpers';

// axe-core on the pages people use most, at each state a turn passes through. Serious and critical
// findings fail the test; every finding is attached to the report.

test('axe: sign-in, sign-up, the empty chat, streaming, an answer, an approval and the tools panel have no serious violations', async ({
  page,
  baseURL,
}, testInfo) => {
  const found: Record<string, { id: string; impact?: string | null; help: string; nodes: number }[]> = {};
  const check = async (name: string) => {
    const { violations } = await new AxeBuilder({ page }).analyze();
    found[name] = violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  };

  try {
    await page.goto('/sign-in');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    expect(await check('sign-in')).toEqual([]);
    await page.goto('/sign-up');
    expect(await check('sign-up')).toEqual([]);

    const user = newUser('axe');
    await signUpViaApi(page.request, appOrigin(baseURL), user);
    await signInViaApi(page.request, user.email, user.password);
    await page.goto('/');
    await expect(page.locator('#composer')).toBeVisible();
    expect(await check('empty-chat')).toEqual([]);

    await sendWithEnter(page, `Check the answer page for accessibility, while it streams. ${'Many words. '.repeat(30)}`);
    await waitForConversation(page);
    await expect(page.getByTestId('streaming-message')).toBeVisible();
    expect(await check('streaming')).toEqual([]);
    await expect(page.getByTestId('assistant-message')).toContainText(DEMO_CLOSING, { timeout: 15_000 });
    expect(await check('answer')).toEqual([]);

    await conversationWithTools(page, appOrigin(baseURL), ['tool:builtin-notes/delete']);
    await sendWithEnter(page, 'call notes__delete {"id": "6f1c1c3e-2b8a-4c1e-9a55-0d6f4c2f9e11", "confirmTitle": "Old plans"}');
    await expect(page.getByTestId('approval-card')).toBeVisible();
    expect(await check('awaiting-approval')).toEqual([]);

    await page.getByRole('button', { name: /^Tools/ }).click();
    const panel = page.getByRole('dialog', { name: 'Tools' });
    await expect(panel.getByRole('region', { name: 'Notes', exact: true })).toBeVisible();
    await panel.getByTestId('model-sees').locator('summary').click();
    expect(await check('tools-panel')).toEqual([]);
  } finally {
    // Every finding, minor ones included, for whoever reads the report.
    await testInfo.attach('axe-violations.json', { body: JSON.stringify(found, null, 2), contentType: 'application/json' });
  }
});

/** A 2×2 indigo PNG: signature, IHDR, one IDAT, IEND (made with zlib and real checksums). */
const TINY_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a7300000010494441' +
    '54789c63f0777b0a440c100a00270e05e918cbf2b80000000049454e44ae426082',
  'hex',
);

test('axe: files in the composer, in a sent message and in the full-size view, in light and dark', async ({ page, baseURL }, testInfo) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'axe-files');
  const upload = async (name: string, mimeType: string, buffer: Buffer) => {
    const res = await page.request.post('/api/files', { headers: { Origin: origin }, multipart: { file: { name, mimeType, buffer } } });
    expect(res.status(), await res.text()).toBe(201);
    return ((await res.json()) as { file: { id: string } }).file.id;
  };
  const created = await page.request.post('/api/conversations', { headers: jsonWrite(origin), data: {} });
  const { id } = (await created.json()) as { id: string };
  const attachments = [
    { fileId: await upload('dot.png', 'image/png', TINY_PNG) },
    { fileId: await upload('notes.md', 'text/markdown', Buffer.from('# Notes\n')) },
  ];
  const sent = await page.request.post(`/api/conversations/${id}/messages`, {
    headers: jsonWrite(origin),
    data: { text: 'Two files', attachments },
  });
  expect(sent.status(), await sent.text()).toBe(202);
  await waitForIdle(page.request, id);
  // And the same two in the composer's draft, through the button.
  await page.goto(`/c/${id}`);
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach files' }).click();
  await (
    await chooser
  ).setFiles([
    { name: 'dot.png', mimeType: 'image/png', buffer: TINY_PNG },
    { name: 'todo.txt', mimeType: 'text/plain', buffer: Buffer.from('todo') },
  ]);
  await expect(page.locator('[data-testid="draft-file"][data-status="ready"]')).toHaveCount(2);

  const found: Record<string, string[]> = {};
  try {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await expect(page.getByTestId('message-image')).toBeVisible();
      found[`files-${colorScheme}`] = await serious(page);
      await page.getByTestId('message-image').click();
      await expect(page.getByRole('dialog', { name: 'dot.png' })).toBeVisible();
      found[`lightbox-${colorScheme}`] = await serious(page);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog', { name: 'dot.png' })).toBeHidden();
    }
  } finally {
    await testInfo.attach('axe-files.json', { body: JSON.stringify(found, null, 2), contentType: 'application/json' });
  }
  expect(found).toEqual({ 'files-light': [], 'lightbox-light': [], 'files-dark': [], 'lightbox-dark': [] });
});

async function serious(page: import('@playwright/test').Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}
