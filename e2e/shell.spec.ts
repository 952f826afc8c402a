import { expect, test } from '@playwright/test';

import { appOrigin, expectedTitle, jsonWrite, signedInUser, waitForConversation, waitForIdle } from './helpers';

test('an example on the empty chat fills the composer, ready to edit or send', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'examples');
  await page.goto('/');
  const composer = page.locator('#composer');
  await page
    .getByRole('list', { name: 'Examples' })
    .getByRole('button', { name: /Save a note/ })
    .click();
  await expect(composer).toHaveValue('call notes__create {"title": "Groceries", "body": "milk, eggs, bread"}');
  await expect(composer).toBeFocused();
  await composer.press('Enter');
  await waitForConversation(page);
  await waitForIdle(page.request, new URL(page.url()).pathname.split('/').pop()!);
  // The title the turn wrote reaches the sidebar and the page's heading without a reload.
  const title = expectedTitle('call notes__create {"title": "Groceries", "body": "milk, eggs, bread"}');
  await expect(page.getByRole('complementary', { name: 'Conversations' }).getByRole('link', { name: title, exact: true })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeAttached();
  // Creating a note is off until switched on in the conversation: the call is refused unrun, and the
  // model is told that only the person can switch it on, and where.
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(page.getByTestId('tool-call').last()).toHaveAttribute('data-status', 'rejected');
  await expect(page.getByTestId('assistant-message').last()).toContainText(
    'notes__create is not available in this conversation: It is not switched on in this conversation.',
  );
  await expect(page.getByTestId('assistant-message').last()).toContainText('Tools panel');
  // Switched on under Tools, the same message calls it; a note is a write, so it waits for the person.
  await page.getByRole('button', { name: /^Tools/ }).click();
  const panel = page.getByRole('dialog', { name: 'Tools' });
  const create = panel.getByRole('region', { name: 'Notes', exact: true }).locator('[data-testid="panel-tool"][data-tool="create"]');
  await create.getByRole('switch').click();
  await expect(create.getByRole('switch')).toHaveAttribute('aria-checked', 'true');
  await panel.getByRole('button', { name: 'Close' }).click();
  await composer.fill('call notes__create {"title": "Groceries", "body": "milk, eggs, bread"}');
  await composer.press('Enter');
  await expect(page.getByTestId('approval-card')).toBeVisible({ timeout: 15_000 });
});

test('deleting a conversation asks in a dialog; Escape cancels and gives the keyboard back', async ({ page, baseURL }) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'dialog');
  const created = await page.request.post('/api/conversations', { headers: jsonWrite(origin), data: { title: 'Trip plans' } });
  expect(created.status()).toBe(201);
  await page.goto('/');
  const sidebar = page.getByRole('complementary', { name: 'Conversations' });
  const trigger = sidebar.getByRole('button', { name: 'Delete “Trip plans”' });
  await trigger.focus();
  await page.keyboard.press('Enter');

  const dialog = page.getByRole('dialog', { name: 'Delete “Trip plans”?' });
  await expect(dialog).toBeVisible();
  // What cannot be undone starts on the safe choice.
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(trigger).toBeFocused();
  await expect(sidebar.getByRole('link', { name: 'Trip plans' })).toBeVisible();
});

test('on a phone the conversations drawer opens over the page, and Escape closes it back to the menu button', async ({
  browser,
  baseURL,
}) => {
  const context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    await signedInUser(context, appOrigin(baseURL), 'drawer');
    await page.goto('/');
    const sidebar = page.getByRole('complementary', { name: 'Conversations' });
    const opener = page.getByRole('button', { name: 'Open conversations' });
    await expect(sidebar).toBeHidden();
    await opener.click();
    await expect(sidebar).toBeVisible();
    await expect(opener).toHaveAttribute('aria-expanded', 'true');
    await expect(sidebar.getByRole('button', { name: 'Close conversations' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(sidebar).toBeHidden();
    await expect(opener).toBeFocused();
  } finally {
    await context.close();
  }
});
