import { readFile } from 'node:fs/promises';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

import { appOrigin, sendWithEnter, signedInUser, waitForConversation, waitForIdle } from './helpers';

// Everyday chat: a conversation downloaded from its header, a message copied as its Markdown
// source, "Switch on" on a card whose tool is off, and highlighted code that passes axe in both
// themes (its contrast, and a code block that scrolls sideways reachable by keyboard).

const LONG_LINE = `const ${'veryLongIdentifierName'.repeat(8)} = ['a long line that has to scroll sideways'];`;
const QUESTION = `Format this:\n\`\`\`ts\n// a comment\n${LONG_LINE}\nexport function double(n: number) {\n  return n * 2;\n}\n\`\`\``;

async function answeredWithCode(page: Page, baseURL: string | undefined, tag: string): Promise<string> {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, tag);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.goto('/');
  await sendWithEnter(page, QUESTION);
  const id = await waitForConversation(page);
  await waitForIdle(page.request, id);
  await expect(page.getByTestId('assistant-message').locator('code[data-highlighted]').first()).toBeVisible();
  return id;
}

test('the header exports the conversation as Markdown and as JSON downloads', async ({ page, baseURL }) => {
  await answeredWithCode(page, baseURL, 'export');
  const header = page.getByTestId('export-menu').filter({ visible: true });
  await header.getByRole('button', { name: 'Export' }).click();
  const list = header.getByRole('list', { name: 'Export this conversation as' });
  await expect(list).toBeVisible();

  const [md] = await Promise.all([page.waitForEvent('download'), list.getByRole('link', { name: /^Markdown/ }).click()]);
  expect(md.suggestedFilename()).toMatch(/^[A-Za-z0-9 ._-]+\.md$/);
  const text = await readFile((await md.path())!, 'utf8');
  expect(text).toMatch(/^# .+\n/);
  expect(text).toContain('## You · ');
  expect(text).toContain('## Assistant · ');
  // The person's words and the answer's code, as written.
  expect(text).toContain(QUESTION);
  expect(text).toContain(`\`\`\`ts\n// a comment\n${LONG_LINE}`);
  // Choosing closes the list.
  await expect(list).toBeHidden();

  await header.getByRole('button', { name: 'Export' }).click();
  const [json] = await Promise.all([page.waitForEvent('download'), list.getByRole('link', { name: /^JSON/ }).click()]);
  expect(json.suggestedFilename()).toMatch(/\.json$/);
  const doc = JSON.parse(await readFile((await json.path())!, 'utf8'));
  expect(doc).toMatchObject({ format: 'switchboard-conversation', version: 1 });
  expect(doc.messages[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', text: QUESTION }] });

  // Escape closes the list and gives the focus back to its button.
  await header.getByRole('button', { name: 'Export' }).click();
  await expect(list).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(list).toBeHidden();
  await expect(header.getByRole('button', { name: 'Export' })).toBeFocused();
});

test('each message copies its Markdown source', async ({ page, baseURL }) => {
  await answeredWithCode(page, baseURL, 'copy');
  const mine = page.getByTestId('user-message').first();
  await mine.hover();
  await mine.getByRole('button', { name: 'Copy message' }).click();
  await expect(mine.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(QUESTION);

  const answer = page.getByTestId('assistant-message').last();
  await answer.hover();
  await answer.getByRole('button', { name: 'Copy as Markdown' }).click();
  await expect(answer.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  // The source with its fences, not the page's rendering of it.
  expect(copied).toContain(`\`\`\`ts\n// a comment\n${LONG_LINE}`);
  expect(copied).not.toContain('Copy code');
});

test('a card whose tool is not switched on opens the Tools panel at that tool; only the panel switches it on', async ({
  page,
  baseURL,
}) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'switch-on');
  await page.goto('/');
  await sendWithEnter(page, 'call notes__create {"title": "Groceries", "body": "milk"}');
  const id = await waitForConversation(page);
  await waitForIdle(page.request, id);
  const card = page.getByTestId('tool-call').last();
  await expect(card).toHaveAttribute('data-status', 'rejected');
  await expect(card).toContainText('It is not switched on in this conversation.');

  await card.getByRole('button', { name: 'Switch on' }).click();
  const panel = page.getByRole('dialog', { name: 'Tools' });
  await expect(panel).toBeVisible();
  const create = panel.locator('[data-testid="panel-tool"][data-tool="create"]');
  await expect(create).toHaveAttribute('data-focused', 'true');
  const toggle = create.getByRole('switch');
  await expect(toggle).toBeFocused();
  await expect(toggle).toBeInViewport();
  // The click on the card granted nothing: the tool is still off until the switch is used.
  await expect(toggle).toHaveAttribute('aria-checked', 'false');
  const before = await (await page.request.get(`/api/conversations/${id}/tools`)).json();
  const notes = before.servers.find((s: { namespace: string }) => s.namespace === 'notes');
  expect(notes.tools.find((t: { name: string }) => t.name === 'create').state).toBe('off');

  await page.keyboard.press('Space');
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  await panel.getByRole('button', { name: 'Close' }).click();
  // Switched on through the panel, the same message calls the tool, which asks before it writes.
  await sendWithEnter(page, 'call notes__create {"title": "Groceries", "body": "milk"}');
  await expect(page.getByTestId('approval-card')).toBeVisible({ timeout: 15_000 });
});

test('highlighted code and a code block that scrolls sideways pass axe in light and dark', async ({ page, baseURL }) => {
  await answeredWithCode(page, baseURL, 'axe-code');
  const block = page.getByTestId('assistant-message').locator('pre').first();
  // It scrolls, so it is a tab stop with a name; a block that fits is none.
  await expect(block).toHaveAttribute('tabindex', '0');
  await expect(block).toHaveAttribute('aria-label', 'ts (scrollable)');
  await block.focus();
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => block.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
  }
  // The same checks do see what was fixed: the block without its tab stop, and the old keyword red on light.
  await page.emulateMedia({ colorScheme: 'light' });
  await block.evaluate((el) => {
    el.removeAttribute('tabindex');
    el.removeAttribute('role');
    el.removeAttribute('aria-label');
    (el.querySelector('span[style]') as HTMLElement).style.color = '#d73a49';
  });
  const { violations } = await new AxeBuilder({ page }).withRules(['scrollable-region-focusable', 'color-contrast']).analyze();
  expect(violations.map((v) => v.id).sort()).toEqual(['color-contrast', 'scrollable-region-focusable']);
});
