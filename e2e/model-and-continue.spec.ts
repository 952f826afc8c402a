import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';

import { appOrigin, DEMO_CLOSING, DEMO_LABEL, sendWithEnter, signedInUser, waitForConversation, waitForIdle } from './helpers';

// The conversation's model and the "continue" of an answer cut at the length limit, in Chromium
// against the demo model: `[demo:cut-at=N]` makes it stop after N words with stop_reason
// max_tokens, and it goes on from the cut answer when that is sent back (a prefill).

const SHOTS = path.resolve('test-results/model-and-continue');

async function shoot(page: Page, name: string) {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${theme}.png`), animations: 'disabled' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('a reply cut at the length limit offers Continue, which goes on with the same answer', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'continue');
  await page.goto('/');
  await sendWithEnter(page, '[demo:cut-at=12] Tell me what you are');
  const conversationId = await waitForConversation(page);
  await waitForIdle(page.request, conversationId);

  // One model (the demo): the picker names it, with no menu to open.
  const picker = page.getByTestId('model-picker');
  await expect(picker).toContainText(`Model: ${DEMO_LABEL}`);
  await expect(picker.getByRole('combobox')).toHaveCount(0);

  const answers = page.getByTestId('assistant-message');
  await expect(answers).toHaveCount(1);
  const cut = answers.first();
  // Twelve words, one output token each.
  await expect(cut).toContainText('This is the offline demo model: no real AI is answering, so');
  await expect(cut).not.toContainText('replies');
  await expect(cut).not.toContainText(DEMO_CLOSING);
  const notice = cut.getByTestId('continue-notice');
  await expect(notice).toContainText('The answer hit the length limit.');
  const goOn = notice.getByRole('button', { name: 'Continue' });
  await expect(goOn).toBeVisible();
  await shoot(page, 'cut');

  await goOn.click();
  await waitForIdle(page.request, conversationId);
  // The rest of the same answer follows it: no new message of the person's, nothing repeated.
  await expect(answers).toHaveCount(2);
  await expect(answers.nth(1)).toContainText('replies are canned. You wrote: "[demo:cut-at=12] Tell me what you are"');
  await expect(answers.nth(1)).toContainText(DEMO_CLOSING);
  await expect(answers.nth(1)).not.toContainText('This is the offline demo model');
  await expect(page.getByTestId('user-message')).toHaveCount(1);
  await expect(page.getByTestId('continue-notice')).toHaveCount(0);
  await expect(page.getByText('cut short')).toHaveCount(0);
  await shoot(page, 'continued');

  // As stored: after a reload the same two parts, and nothing left to continue.
  await page.reload();
  await expect(page.getByTestId('assistant-message')).toHaveCount(2);
  await expect(page.getByTestId('continue-notice')).toHaveCount(0);
  const again = await page.request.post(`/api/conversations/${conversationId}/messages`, {
    headers: { 'Content-Type': 'application/json', Origin: appOrigin(baseURL) },
    data: { continue: true },
  });
  expect(again.status()).toBe(409);
});

test('a message sent while a setting is still being saved goes out under the new setting', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'settings-race');
  await page.goto('/');
  await sendWithEnter(page, 'Hello there');
  const conversationId = await waitForConversation(page);
  await waitForIdle(page.request, conversationId);

  // The save is held back for a while (the real server answers it after that), and the message is sent meanwhile.
  await page.route(`**/api/conversations/${conversationId}`, async (route) => {
    if (route.request().method() === 'PATCH') await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  await page.getByTestId('thinking-toggle').click();
  await sendWithEnter(page, 'What should I cook tonight?');
  await waitForIdle(page.request, conversationId);
  const second = page.getByTestId('assistant-message').nth(1);
  await expect(second).toContainText(DEMO_CLOSING);
  await expect(second.getByTestId('thinking-section')).toHaveCount(1);
});

test('with several models the picker is a menu; a model the server does not offer is refused and the choice kept', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'picker');
  await page.goto('/');
  await sendWithEnter(page, 'Hello there');
  await waitForConversation(page);
  // The demo lists one model; this listing adds a second one the server does not run, so the menu
  // shows and the server's own check of the choice is seen (its PATCH goes through unchanged).
  await page.route('**/api/models', async (route) => {
    const real = await (await route.fetch()).json();
    const other = { id: 'claude-elsewhere-1', label: 'Claude Elsewhere', contextWindow: 200_000, maxOutputTokens: 64_000 };
    await route.fulfill({ json: { ...real, models: [...real.models, other] } });
  });
  await page.reload();
  const menu = page.getByTestId('model-picker').getByRole('combobox', { name: 'Model' });
  await expect(menu).toHaveValue('demo');
  await expect(menu.locator('option')).toHaveText([DEMO_LABEL, 'Claude Elsewhere']);
  await shoot(page, 'picker');
  await menu.selectOption('claude-elsewhere-1');
  await expect(page.getByTestId('model-picker').getByRole('alert')).toContainText(
    'model: "claude-elsewhere-1" is not a model this server offers; choose one of "demo".',
  );
  await expect(menu).toHaveValue('demo');
});
