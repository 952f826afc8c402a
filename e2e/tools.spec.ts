import { expect, test } from '@playwright/test';

import { appOrigin, conversationWithTools, sendWithEnter, signedInUser, waitForConversation, waitForIdle } from './helpers';

// Tool calls with the demo model and the built-in servers: what runs without asking, what asks,
// and that the person's decision is what the model hears.

test('a read-only built-in call runs without asking and its result is shown inline', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'tools-readonly');
  await page.goto('/');
  await sendWithEnter(page, 'Please look through my notes with notes__search');
  const id = await waitForConversation(page);
  await waitForIdle(page.request, id);
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  const card = page.getByTestId('tool-call').first();
  await expect(card).toHaveAttribute('data-status', 'succeeded');
  await expect(card).toContainText('Notes · search');
  await expect(card).toContainText('read-only');
  await expect(page.getByTestId('assistant-message').last()).toContainText('notes__search returned');
});

test('notes__delete asks with the exact arguments; a denial with a reason reaches the model', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'tools-deny');
  const id = await conversationWithTools(page, appOrigin(baseURL), ['tool:builtin-notes/delete']);
  const args = { id: '6f1c1c3e-2b8a-4c1e-9a55-0d6f4c2f9e11', confirmTitle: 'Old plans' };
  await sendWithEnter(page, `call notes__delete ${JSON.stringify(args)}`);

  const approval = page.getByTestId('approval-card');
  await expect(approval).toBeVisible();
  await expect(approval).toContainText('Notes · delete');
  await expect(approval).toContainText('destructive');
  const shown = JSON.parse((await page.getByTestId('approval-arguments').textContent()) ?? '{}');
  expect(shown).toEqual(args);
  await expect(page.locator('#composer')).toBeDisabled();

  // Keyboard: the buttons are reachable and operable without a mouse.
  await page.getByRole('button', { name: 'Deny…' }).focus();
  await page.keyboard.press('Enter');
  await page.getByLabel('Reason for the model (optional)').fill('keep that note');
  await page.keyboard.press('Enter');

  await waitForIdle(page.request, id);
  await expect(page.getByTestId('tool-call').first()).toHaveAttribute('data-status', 'denied');
  const reply = page.getByTestId('assistant-message').last();
  await expect(reply).toContainText('notes__delete failed');
  await expect(reply).toContainText('keep that note');
});

test('an approval survives a reload, and Allow once runs the call', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'tools-approve');
  const id = await conversationWithTools(page, appOrigin(baseURL), ['tool:builtin-notes/create']);
  await sendWithEnter(page, 'call notes__create {"title": "Groceries", "body": "milk, eggs"}');
  await expect(page.getByTestId('approval-card')).toBeVisible();

  await page.reload();
  const approval = page.getByTestId('approval-card');
  await expect(approval).toBeVisible();
  await expect(approval).toContainText('Notes · create');
  await expect(page.getByTestId('approval-arguments')).toContainText('Groceries');

  await approval.getByRole('button', { name: 'Allow once' }).click();
  await waitForIdle(page.request, id);
  await expect(page.getByTestId('tool-call').first()).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('assistant-message').last()).toContainText('notes__create returned');

  // The note really exists: a read-only search finds it without asking.
  await sendWithEnter(page, 'call notes__search {"query": "Groceries"}');
  await waitForIdle(page.request, id);
  await expect(page.getByTestId('assistant-message').last()).toContainText('Groceries');
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
});

test('a turn with several calls shows its timeline: what waited for approval, what ran at once, how long each took', async ({
  page,
  baseURL,
}) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'tools-timeline');
  const id = await conversationWithTools(page, appOrigin(baseURL), ['tool:builtin-notes/create']);
  await sendWithEnter(page, 'call notes__search {"query": "plans"}\ncall notes__create {"title": "Plans", "body": "timeline"}');
  await page.getByTestId('approval-card').getByRole('button', { name: 'Allow once' }).click();
  await waitForIdle(page.request, id);

  const timeline = page.getByTestId('turn-timeline');
  await expect(timeline).toContainText('2 tool calls in 1 step');
  await timeline.getByText('Timeline').click();
  await expect(timeline.getByRole('heading', { name: 'Step 1' })).toBeVisible();
  const rows = timeline.getByTestId('timeline-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toContainText('Notes · search');
  await expect(rows.nth(0)).toContainText(/^Notes · searchran \d/);
  await expect(rows.nth(1)).toContainText('Notes · create');
  await expect(rows.nth(1)).toContainText(/waited [\d.]+ (ms|s) for your approval, ran \d/);
  // For people to look at (git-ignored, like e2e/screenshots.spec.ts).
  await timeline.screenshot({ path: 'screenshots/timeline.png' });
});

test('the sandbox runs JavaScript without asking and returns structured output', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'tools-sandbox');
  await page.goto('/');
  await sendWithEnter(page, 'call sandbox__run_js {"code": "console.log(\'hi\'); [1, 2, 3].map((n) => n * 7).join(\',\')"}');
  const id = await waitForConversation(page);
  await waitForIdle(page.request, id);
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  const card = page.getByTestId('tool-call').first();
  await expect(card).toHaveAttribute('data-status', 'succeeded');
  await card.locator('summary').click();
  await expect(card).toContainText('7,14,21');
  await expect(card).toContainText('stdout');
});

test('edit-then-approve: an invalid edit is refused naming the field, a valid one runs as edited', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'tools-edit');
  const id = await conversationWithTools(page, appOrigin(baseURL), ['tool:builtin-notes/create']);
  await sendWithEnter(page, 'call notes__create {"title": "Draft title", "body": "first version"}');
  const approval = page.getByTestId('approval-card');
  await approval.getByRole('button', { name: 'Edit…' }).click();
  const editor = approval.getByLabel('Edit the arguments (JSON), then approve');

  await editor.fill(JSON.stringify({ body: 'no title' }));
  await approval.getByRole('button', { name: 'Approve edited' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'input: Field "title" is required' })).toBeVisible();
  await expect(approval).toBeVisible(); // still pending

  await editor.fill(JSON.stringify({ title: 'Final title', body: 'second version' }));
  await approval.getByRole('button', { name: 'Approve edited' }).click();
  await waitForIdle(page.request, id);
  const card = page.getByTestId('tool-call').first();
  await expect(card).toHaveAttribute('data-status', 'succeeded');
  await expect(card).toContainText('edited');
  await expect(page.getByTestId('assistant-message').last()).toContainText('Final title');
});

test('a reload right after approving keeps following the resumed run to its end', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'tools-resume-reload');
  await conversationWithTools(page, appOrigin(baseURL), ['tool:builtin-notes/create']);
  await sendWithEnter(page, 'call notes__create {"title": "Reload test", "body": "x"}');
  const approval = page.getByTestId('approval-card');
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await expect(approval).toHaveCount(0);
  // The replay now holds an old pause (run.awaiting_approval): the page must not stop there.
  await page.reload();
  await expect(page.getByTestId('assistant-message').last()).toContainText('notes__create returned', { timeout: 15_000 });
  await expect(page.getByTestId('approval-card')).toHaveCount(0);
  await expect(page.locator('#composer')).toBeEnabled({ timeout: 15_000 });
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
});
