import { expect, test } from '@playwright/test';

import {
  DEMO_CLOSING,
  DEMO_LABEL,
  DEMO_OPENING,
  expectedTitle,
  newUser,
  occurrences,
  recordStreamLengths,
  sendWithEnter,
  signInViaUi,
  signOutViaUi,
  signUpViaUi,
  streamLengths,
  waitForConversation,
  words,
} from './helpers';

// The whole life of a conversation, as a person goes through it, in order.
test('sign up, sign in, stream an answer across a reload, rename, delete, sign out', async ({ page }) => {
  test.setTimeout(90_000);
  const user = newUser('journey');
  await recordStreamLengths(page);

  await test.step('sign up in the UI lands signed in on the empty chat', async () => {
    await signUpViaUi(page, user);
    const sidebar = page.getByRole('complementary', { name: 'Conversations' });
    await expect(sidebar.getByText(user.name, { exact: true })).toBeVisible();
    await expect(page.getByTestId('model-label')).toHaveText(DEMO_LABEL);
    await expect(sidebar.getByText('No conversations yet.')).toBeVisible();
  });

  await test.step('sign out, then sign in again in the UI', async () => {
    await signOutViaUi(page);
    await expect(page.getByRole('heading', { name: 'Sign in to Switchboard' })).toBeVisible();
    await signInViaUi(page, user.email, user.password);
  });

  // 150 words: the answer repeats them, ~175 words at 40 ms a word, about 7 s of streaming.
  const message = words(150, 'journey');
  const streaming = page.getByTestId('streaming-message');
  const answers = page.getByTestId('assistant-message');
  let conversationId = '';

  await test.step('a long message sent with Enter opens a conversation and the answer streams in', async () => {
    await sendWithEnter(page, message);
    conversationId = await waitForConversation(page);
    await expect(page.getByTestId('user-message')).toHaveText(message);
    // Seen growing: at least three distinct non-empty lengths of the in-progress text.
    await expect.poll(async () => new Set(await streamLengths(page)).size, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    const lengths = await streamLengths(page);
    expect(lengths.length).toBeGreaterThanOrEqual(3);
    expect(lengths[lengths.length - 1]).toBeGreaterThan(lengths[0]!);
    // Still in progress: the composer offers Stop, and nothing is stored yet.
    await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
    await expect(streaming).toContainText(DEMO_OPENING);
    await expect(streaming).not.toContainText(DEMO_CLOSING);
    await expect(answers).toHaveCount(0);
  });

  await test.step('a reload mid-answer picks the stream up again and it completes once', async () => {
    await page.reload();
    // The answer was not finished when the page came back: it is followed, not re-fetched whole.
    await expect(streaming).toBeVisible();
    await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
    expect((await streamLengths(page)).length, 'the reloaded page saw the answer still streaming').toBeGreaterThan(0);

    await expect(answers).toHaveCount(1, { timeout: 20_000 });
    await expect(answers).toContainText(DEMO_CLOSING);
    await expect(streaming).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();

    const text = (await answers.textContent()) ?? '';
    expect(text).toContain(`You wrote: "${message}"`);
    expect(occurrences(text, message), 'the echoed message appears once').toBe(1);
    expect(occurrences(text, DEMO_OPENING)).toBe(1);
    expect(occurrences(text, DEMO_CLOSING)).toBe(1);
    await expect(page.getByTestId('user-message')).toHaveCount(1);

    // And the stored copy reads the same after another load.
    await page.reload();
    await expect(answers).toHaveCount(1);
    expect(occurrences((await answers.textContent()) ?? '', message)).toBe(1);
  });

  const sidebar = page.getByRole('complementary', { name: 'Conversations' });
  const firstTitle = expectedTitle(message);
  const newTitle = `Renamed journey ${conversationId.slice(0, 8)}`;

  await test.step('rename from the sidebar; the new title stays after a reload', async () => {
    const link = sidebar.getByRole('link', { name: firstTitle, exact: true });
    await expect(link).toHaveAttribute('href', `/c/${conversationId}`);
    await expect(link).toHaveAttribute('aria-current', 'page');
    await sidebar.getByRole('button', { name: `Rename “${firstTitle}”` }).click();
    const input = sidebar.getByLabel('New title');
    await expect(input).toBeFocused();
    await input.fill(newTitle);
    await input.press('Enter');
    await expect(sidebar.getByRole('link', { name: newTitle, exact: true })).toBeVisible();
    await expect(sidebar.getByRole('link', { name: firstTitle, exact: true })).toHaveCount(0);

    await page.reload();
    await expect(sidebar.getByRole('link', { name: newTitle, exact: true })).toHaveAttribute('href', `/c/${conversationId}`);
    const stored = await page.request.get(`/api/conversations/${conversationId}`);
    expect(((await stored.json()) as { title: string }).title).toBe(newTitle);
  });

  await test.step('delete from the sidebar (after confirming) removes it', async () => {
    await sidebar.getByRole('button', { name: `Delete “${newTitle}”` }).click();
    await expect(sidebar.getByText(`Delete “${newTitle}”?`)).toBeVisible();
    await sidebar.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/');
    await expect(sidebar.getByRole('link', { name: newTitle })).toHaveCount(0);
    await expect(sidebar.getByText('No conversations yet.')).toBeVisible();
    expect((await page.request.get(`/api/conversations/${conversationId}`)).status()).toBe(404);
    const list = (await (await page.request.get('/api/conversations')).json()) as { conversations: unknown[] };
    expect(list.conversations).toEqual([]);
  });

  await test.step('after signing out, the chat and the old conversation send you to sign in', async () => {
    await signOutViaUi(page);
    await page.goto('/');
    await expect(page).toHaveURL((url) => url.pathname === '/sign-in');
    await page.goto(`/c/${conversationId}`);
    await expect(page).toHaveURL((url) => url.pathname === '/sign-in');
    await expect(page.locator('#field-email')).toBeVisible();
    expect((await page.request.get('/api/conversations')).status()).toBe(401);
  });
});
