import { expect, test } from '@playwright/test';

import { appOrigin, DEMO_CLOSING, DEMO_LABEL, sendWithEnter, signedInUser, waitForConversation, waitForIdle, words } from './helpers';

test('composer: Shift+Enter is a new line, no sending while a run is active, Stop ends an answer early', async ({ page, baseURL }) => {
  test.setTimeout(60_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'composer');
  await page.goto('/');

  const composer = page.locator('#composer');
  const send = page.getByRole('button', { name: 'Send' });
  const stop = page.getByRole('button', { name: 'Stop' });
  const answers = page.getByTestId('assistant-message');

  await test.step('the model label says which model answers', async () => {
    await expect(page.getByTestId('model-label')).toHaveText(DEMO_LABEL);
    await expect(page.getByText(`Model: ${DEMO_LABEL}`)).toBeVisible();
  });

  await test.step('Shift+Enter inserts a newline and sends nothing', async () => {
    await expect(send).toBeDisabled(); // nothing typed yet
    await composer.click();
    await composer.pressSequentially('first line');
    await composer.press('Shift+Enter');
    await composer.pressSequentially('second line');
    await expect(composer).toHaveValue('first line\nsecond line');
    await expect(page).toHaveURL((url) => url.pathname === '/');
    const list = (await (await page.request.get('/api/conversations')).json()) as { conversations: unknown[] };
    expect(list.conversations).toHaveLength(0);
  });

  let conversationId = '';
  await test.step('Enter sends the two-line message', async () => {
    await composer.press('Enter');
    conversationId = await waitForConversation(page);
    await expect(page.getByTestId('user-message')).toHaveText('first line\nsecond line');
    await expect(answers).toHaveCount(1, { timeout: 15_000 });
    await expect(answers).toContainText(DEMO_CLOSING);
    await expect(composer).toBeEnabled();
    await expect(composer).toHaveValue('');
  });

  // 400 words: ~16 s to stream in full, far longer than it takes to press Stop.
  const long = words(400, 'stoppable');
  await test.step('while the answer runs the composer is locked and offers Stop instead of Send', async () => {
    await sendWithEnter(page, long);
    await expect(stop).toBeVisible();
    await expect(send).toHaveCount(0);
    await expect(composer).toBeDisabled();
    await expect(composer).toHaveAttribute('placeholder', /Waiting for the answer/);
    await expect(page.getByTestId('streaming-message')).toContainText('You wrote:');
    // The server agrees: a second message now is refused.
    const second = await page.request.post(`/api/conversations/${conversationId}/messages`, {
      headers: { 'Content-Type': 'application/json', Origin: appOrigin(baseURL) },
      data: { text: 'squeezing in' },
    });
    expect(second.status()).toBe(409);
  });

  await test.step('Stop ends the answer early and marks it stopped', async () => {
    await stop.click();
    await expect(answers).toHaveCount(2);
    const stopped = answers.nth(1);
    await expect(stopped).toContainText('Stopped.');
    await expect(stopped).toContainText('You wrote:');
    await expect(stopped).not.toContainText(DEMO_CLOSING);
    // Cut off: the echo of the 400 words is incomplete.
    expect((await stopped.textContent()) ?? '').not.toContain(long);
    await expect(page.getByTestId('streaming-message')).toHaveCount(0);
    await waitForIdle(page.request, conversationId);
    // Stored as stopped, too.
    const view = (await (await page.request.get(`/api/conversations/${conversationId}`)).json()) as {
      lastRun: { status: string } | null;
      messages: { role: string; stopReason: string | null }[];
    };
    expect(view.lastRun?.status).toBe('cancelled');
    expect(view.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'cancelled' });
  });

  await test.step('after Stop the composer works again', async () => {
    await expect(stop).toHaveCount(0);
    await expect(composer).toBeEnabled();
    await sendWithEnter(page, 'one more after stopping');
    await expect(page.getByTestId('user-message')).toHaveCount(3);
    await expect(answers).toHaveCount(3, { timeout: 15_000 });
    await expect(answers.nth(2)).toContainText('You wrote: "one more after stopping"');
    await expect(answers.nth(2)).toContainText(DEMO_CLOSING);
  });
});
