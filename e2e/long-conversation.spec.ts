import { expect, test } from '@playwright/test';

import { appOrigin, jsonWrite, signedInUser, waitForIdle } from './helpers';

// A long conversation reaches the page a page at a time (lib/chat/path-page.ts): the page comes with
// the end of the path, and scrolling back reads the messages before it, keeping the reader's place.
// Shared, it is read from its start: the shared page comes with the first turns, scrolling down reads the rest.

const TOOL_TURNS = 16; // four messages each: the question, the call, its result, the answer
const FIRST_QUESTION = 'The very first question';

test('a long conversation opens at its end and scrolls back; shared, it opens at its start and scrolls on', async ({
  page,
  context,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const origin = appOrigin(baseURL);
  await signedInUser(context, origin, 'long');
  const created = await page.request.post('/api/conversations', { headers: jsonWrite(origin), data: { title: 'A long conversation' } });
  const { id } = (await created.json()) as { id: string };
  // Each turn through the API, its events read to the end (the turn's end), one after another.
  for (let i = 0; i < TOOL_TURNS + 1; i++) {
    const text =
      i === 0
        ? `${FIRST_QUESTION}\ncall notes__search {"query": "q0"}`
        : i < TOOL_TURNS
          ? `call notes__search {"query": "q${i}"}`
          : 'The last question';
    const sent = await page.request.post(`/api/conversations/${id}/messages`, {
      headers: jsonWrite(origin, { Accept: 'text/event-stream' }),
      data: { text },
    });
    expect(sent.status(), await sent.text()).toBe(200);
  }
  await waitForIdle(page.request, id);

  const html = await (await page.request.get(`/c/${id}`)).text();
  expect(html).toContain('The last question');
  // The page's own payload leaves the oldest turns out.
  expect(html).not.toContain(FIRST_QUESTION);

  await page.goto(`/c/${id}`);
  const scroller = page.getByTestId('conversation-scroller');
  const questions = page.getByTestId('user-message');
  await expect(questions.last()).toContainText('The last question');
  const earlier = page.getByTestId('earlier-messages');
  await expect(earlier).toContainText(/Show \d+ earlier messages?/);
  // The page's first message, held as the element itself (a locator would find the new first one).
  const firstShown = (await questions.first().elementHandle())!;
  expect(await firstShown.textContent()).not.toContain(FIRST_QUESTION);

  // Scrolling to the top reads the page before, and what was first stays where it was on screen.
  // Where it is right after the scroll is read in the same task, before the page before can arrive.
  const top = await scroller.evaluate((el, first) => {
    el.scrollTo({ top: 0 });
    return first.getBoundingClientRect().top;
  }, firstShown);
  await expect(questions.first()).toContainText(FIRST_QUESTION);
  await expect(earlier).toBeHidden();
  await expect.poll(async () => Math.abs((await firstShown.boundingBox())!.y - top)).toBeLessThan(4);
  // The earlier turns come with their tool cards.
  await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(page.getByTestId('tool-call').first()).toBeVisible();
  expect(await page.getByTestId('tool-call').count()).toBe(TOOL_TURNS);
  expect(await questions.count()).toBe(TOOL_TURNS + 1);

  // Shared: the link's page starts at the first question and reads the rest as the reader scrolls down.
  const shared = await page.request.post(`/api/conversations/${id}/shares`, {
    headers: jsonWrite(origin),
    data: { includeToolDetails: true, audience: 'anyone', expiresIn: 'never' },
  });
  expect(shared.status(), await shared.text()).toBe(201);
  const { url } = (await shared.json()) as { url: string };
  const sharedPath = new URL(url).pathname;
  const sharedHtml = await (await page.request.get(sharedPath)).text();
  expect(sharedHtml).toContain(FIRST_QUESTION);
  expect(sharedHtml).not.toContain('The last question');
  await page.goto(sharedPath);
  const more = page.getByTestId('later-messages');
  await expect(more).toContainText(/Show \d+ more messages?/);
  await page.evaluate(() => window.scrollTo({ top: document.body.scrollHeight }));
  await expect(questions.last()).toContainText('The last question');
  await expect(more).toBeHidden();
  expect(await questions.count()).toBe(TOOL_TURNS + 1);
  expect(await page.getByTestId('tool-call').count()).toBe(TOOL_TURNS);
});
