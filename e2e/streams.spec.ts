import { expect, test } from '@playwright/test';

import { appOrigin, conversationWithTools, sendWithEnter, signedInUser, waitForIdle } from './helpers';

// The per-conversation cap on open event streams (default 6, lib/limits.ts): a newer stream
// closes the oldest with `stream.closed`; the page that held it says why and does not reconnect
// by itself (two tabs would otherwise take the stream from each other forever).
test('a page whose event stream was taken by newer ones says why, stays put, and continues when asked', async ({ page, baseURL }) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'streams-cap');
  // The page's timers run on Playwright's clock, so "it does not reconnect by itself" is checked by
  // moving time on past any retry delay instead of waiting for it.
  await page.clock.install();
  const eventResponses: string[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/events')) eventResponses.push(new URL(r.url()).search);
  });
  // Every request the page makes, in the order it makes them.
  const requested: string[] = [];
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  const id = await conversationWithTools(page, origin, ['tool:builtin-notes/create']);
  await sendWithEnter(page, 'call notes__create {"title": "Caps", "body": "six tabs"}');
  await expect(page.getByTestId('approval-card')).toBeVisible();
  // The pause ended the page's first stream; it now waits on the run with a second one.
  await expect.poll(() => eventResponses.length).toBeGreaterThanOrEqual(2);

  // Six more streams of the same conversation, as six other tabs would open (outside the
  // browser, whose six connections per host would queue them).
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const others: AbortController[] = [];
  for (let i = 0; i < 6; i++) {
    const ctl = new AbortController();
    others.push(ctl);
    const res = await fetch(`${origin}/api/conversations/${id}/events?after=999999`, { headers: { cookie }, signal: ctl.signal });
    expect(res.status).toBe(200);
  }
  try {
    const notice = page.getByRole('alert').filter({ hasText: 'opened in another tab or window' });
    await expect(notice).toBeVisible();
    const before = eventResponses.length;
    const requestedBefore = requested.length;
    // A minute of the page's time passes: any retry it had scheduled has fired. Then a marker
    // request from the page: a reconnect would have been requested before it.
    await page.clock.runFor(60_000);
    await page.evaluate(() => fetch('/api/health?marker=1').then(() => undefined));
    await expect.poll(() => requested.indexOf('/api/health', requestedBefore)).toBeGreaterThanOrEqual(0);
    const meanwhile = requested.slice(requestedBefore, requested.indexOf('/api/health', requestedBefore));
    expect(
      meanwhile.filter((p) => p.endsWith('/events')),
      'the page does not reconnect by itself',
    ).toEqual([]);
    expect(eventResponses.length).toBe(before);

    await notice.getByRole('button', { name: 'Reload to continue here' }).click();
    await expect(notice).toHaveCount(0);
    await expect.poll(() => eventResponses.length).toBeGreaterThan(before);

    await page.getByTestId('approval-card').getByRole('button', { name: 'Allow once' }).click();
    await waitForIdle(page.request, id);
    await expect(page.getByTestId('assistant-message').last()).toContainText('notes__create returned');
  } finally {
    for (const ctl of others) ctl.abort();
  }
});
