import { expect, test } from '@playwright/test';

import { DEMO_OPENING, jsonWrite, newUser, sendWithEnter, signUpViaUi, waitForConversation } from '../helpers';
import { FIRST_RUN } from './timing';

// Issue "The experience": on a fresh clone (`npm run dev`, nothing compiled), a new user's second
// turn — the first that needs an approval — showed "Thinking…" and Stop until a reload. Its
// EventSource was the first request to the events route, and `next dev` held it while it
// compiled; the page waited on it with no way to tell a slow stream from a dead one. Here the
// hold is longer than the test waits, so the card can only come from the page noticing the
// silence (no ping for two intervals) and reading the conversation again.
test('a new user on a cold `next dev`: the approval card of the second turn appears while its event stream is held', async ({ page }) => {
  const started = Date.now();
  const marks: string[] = [];
  const mark = (what: string) => marks.push(`${what} at ${((Date.now() - started) / 1000).toFixed(1)}s`);
  const eventRequests: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/events')) eventRequests.push(new URL(r.url()).search);
  });

  await signUpViaUi(page, newUser('first-run'));
  mark('signed up');

  await sendWithEnter(page, 'Hello! What can you do?');
  const conversationId = await waitForConversation(page);
  const answers = page.getByTestId('assistant-message');
  await expect(answers.first()).toContainText(DEMO_OPENING);
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  mark('first answer shown');

  // Creating a note is off until switched on in the conversation (as its Tools panel does).
  const granted = await page.request.put(`/api/conversations/${conversationId}/grants`, {
    headers: jsonWrite(new URL(page.url()).origin),
    data: { scope: 'tool:builtin-notes/create', enabled: true },
  });
  expect(granted.status(), await granted.text()).toBe(200);
  await sendWithEnter(page, 'call notes__create {"title": "Groceries", "body": "milk, eggs"}');
  await expect.poll(() => eventRequests.length, { message: 'the page opened an event stream for the second turn' }).toBeGreaterThan(0);
  const allow = page.getByRole('button', { name: 'Allow once' });
  // Well before the held stream would answer: only the resync can show the card this early.
  await expect(allow).toBeVisible({ timeout: FIRST_RUN.cardWithinMs });
  await expect(page.getByText('Needs your approval')).toBeVisible();
  await expect(page.getByText('Thinking…')).toHaveCount(0);
  mark('approval card shown');

  await allow.click();
  await expect(answers.last()).toContainText('Groceries', { timeout: FIRST_RUN.cardWithinMs });
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  mark('note created and answered');

  console.log(`[first-run] ${marks.join(', ')}; event stream requests: ${eventRequests.join(' ')}`);
});
