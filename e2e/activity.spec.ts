import { readFile } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

import { appOrigin, jsonWrite, sendWithEnter, signedInUser, waitForConversation, waitForIdle } from './helpers';

// The Activity page: the audit log of every tool call and grant change, from a tool card's link to
// its entry, filters, Verify and the JSON Lines export with the chain head last.

const SHOTS_DIR = path.resolve('screenshots');

test('the Activity page lists each call and grant change, links from a tool card, filters, verifies and exports', async ({
  page,
  baseURL,
}) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'activity');
  await page.goto('/');
  // A first-party read-only tool: on by default.
  await sendWithEnter(page, 'call notes__search {"query": "milk"}');
  const id = await waitForConversation(page);
  await waitForIdle(page.request, id);
  // A tool switched on for this conversation (a grant), then called and denied.
  const granted = await page.request.put(`/api/conversations/${id}/grants`, {
    headers: jsonWrite(origin),
    data: { scope: 'tool:builtin-notes/create', enabled: true },
  });
  expect(granted.status()).toBe(200);
  await sendWithEnter(page, 'call notes__create {"title": "Milk", "body": "2 l"}');
  await page.getByTestId('approval-card').getByRole('button', { name: 'Deny…' }).click();
  await page.getByLabel('Reason for the model (optional)').fill('not today');
  await page.keyboard.press('Enter');
  await waitForIdle(page.request, id);
  // A tool that is not switched on: not run.
  await sendWithEnter(page, 'call notes__delete {"id": "6f1c1c3e-2b8a-4c1e-9a55-0d6f4c2f9e11", "confirmTitle": "Old"}');
  await waitForIdle(page.request, id);

  // The first card links to its own entry, highlighted.
  const first = page.getByTestId('tool-call').first();
  await first.locator('summary').click();
  await first.getByRole('link', { name: 'See it in the activity log' }).click();
  await expect(page).toHaveURL(/\/activity\?toolCall=/);
  const linked = page.getByTestId('activity-entry');
  await expect(linked).toHaveCount(1);
  await expect(linked).toHaveAttribute('aria-current', 'true');
  await expect(linked).toContainText('Notes · search');
  await expect(linked).toContainText('On by default');

  await page.getByRole('button', { name: 'Show everything' }).click();
  const entries = page.getByTestId('activity-entry');
  await expect(entries).toHaveCount(4);
  await expect(entries.nth(0)).toContainText('notes__delete');
  await expect(entries.nth(0)).toContainText('Refused by policy');
  await expect(entries.nth(1)).toContainText('Notes · create');
  await expect(entries.nth(1)).toContainText('Denied by you: “not today”');
  await expect(entries.nth(2)).toContainText('Grant: Notes · create');
  await expect(entries.nth(2)).toContainText('Switched on');

  // Filters: only what was denied.
  await page.getByLabel('Outcome').selectOption('denied');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(entries).toHaveCount(1);
  await expect(entries.first()).toContainText('Notes · create');
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(entries).toHaveCount(4);

  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByTestId('verify-result')).toContainText('Your activity log is intact');
  await expect(page.getByTestId('verify-result')).toContainText('4 entries checked');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export' }).click()]);
  const lines = (await readFile((await download.path())!, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; seq: number });
  expect(lines.map((l) => l.type)).toEqual(['entry', 'entry', 'entry', 'entry', 'head']);
  expect(lines.at(-1)!.seq).toBe(4);

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
      await page.screenshot({
        path: path.join(SHOTS_DIR, `activity-${scheme}-${viewport.width}x${viewport.height}.png`),
        animations: 'disabled',
      });
    }
  }
  // On a phone nothing scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
