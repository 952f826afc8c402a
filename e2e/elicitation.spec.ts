import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';

import { FIXTURE_API_KEY, FIXTURE_API_KEY_HEADER, URL_STEP_FIXTURE_URL, URL_STEP_PAGE_BASE } from './fixtures/ports';
import { appOrigin, conversationWithTools, jsonWrite, sendWithEnter, signedInUser, waitForIdle } from './helpers';

// URL-mode elicitation in Chromium: the fixture's `confirm_on_page` (test/fixtures/url-step-server.ts)
// asks the person to finish a step on its own loopback page. The card shows the page's host, opens
// it in a new tab only on the person's click (no opener), and once the page says the step is done,
// "I've finished" resumes the call with the server's result.

const SHOTS_DIR = path.resolve('screenshots');

async function shoot(page: Page, name: string) {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  await page.getByTestId('input-card').screenshot({ path: path.join(SHOTS_DIR, `elicitation-${name}.png`) });
}

test('a link step: the host shown, opened in a new tab on a click, finished there, and the call completes', async ({ page, baseURL }) => {
  test.setTimeout(30_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'elicit-url');
  const added = await page.request.post('/api/servers', {
    headers: jsonWrite(origin),
    data: { name: 'Bank', namespace: 'bank', url: URL_STEP_FIXTURE_URL, headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY } },
  });
  expect(added.status(), await added.text()).toBe(201);
  const { server } = (await added.json()) as { server: { id: string; tools: { name: string; fingerprint: string }[] } };
  const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
  const enabled = await page.request.post(`/api/servers/${server.id}/enable`, { headers: jsonWrite(origin), data: { tools } });
  expect(enabled.status(), await enabled.text()).toBe(200);
  const id = await conversationWithTools(page, origin, [`server:${server.id}/*`]);
  await page.emulateMedia({ colorScheme: 'light' });

  await sendWithEnter(page, 'call bank__confirm_on_page {}');
  await page.getByTestId('approval-card').getByRole('button', { name: 'Allow once' }).click();
  const card = page.getByTestId('input-card');
  await expect(card).toContainText('Bank asks you to continue on a web page: Confirm the transfer on the bank page, then come back.');
  const host = new URL(URL_STEP_PAGE_BASE).host;
  await expect(card.getByTestId('input-link-host')).toHaveText(host);
  await expect(card.getByTestId('input-link-url')).toContainText(`${URL_STEP_PAGE_BASE}/step/`);
  await shoot(page, 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, 'dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Nothing opened by itself: one tab until the person clicks.
  expect(page.context().pages()).toHaveLength(1);
  const [tab] = await Promise.all([page.context().waitForEvent('page'), card.getByRole('button', { name: `Open ${host}` }).click()]);
  await tab.waitForLoadState();
  expect(tab.url()).toMatch(new RegExp(`^${URL_STEP_PAGE_BASE}/step/[0-9a-f]{12}$`));
  expect(await tab.evaluate(() => window.opener)).toBeNull();
  await tab.getByRole('button', { name: 'Finish' }).click();
  await expect(tab.getByRole('heading', { name: 'Step finished' })).toBeVisible();
  await tab.close();

  await card.getByRole('button', { name: 'I’ve finished' }).click();
  await waitForIdle(page.request, id, 15_000);
  const call = page.getByTestId('tool-call').first();
  await expect(call).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByText(/bank__confirm_on_page returned: Step [0-9a-f]{12} was confirmed on the page\./)).toBeVisible();
  await expect(page.getByTestId('input-card')).toHaveCount(0);
});
