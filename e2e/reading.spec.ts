import { expect, test } from '@playwright/test';

import { appOrigin, sendWithEnter, signedInUser, waitForConversation, waitForIdle, words } from './helpers';

// Reading an answer: code comes back highlighted (shiki, loaded after the text is on screen) with
// a copy button, and a long streaming answer does not drag the reader down once they scroll up.

test('a code block in an answer is highlighted in both themes and can be copied', async ({ page, context, baseURL }) => {
  await signedInUser(context, appOrigin(baseURL), 'code');
  await page.goto('/');
  await sendWithEnter(
    page,
    'Format this:\n```ts\nconst answer: number = 42;\nexport function double(n: number) {\n  return n * 2;\n}\n```',
  );
  const id = await waitForConversation(page);
  await waitForIdle(page.request, id);

  const block = page.getByTestId('assistant-message').locator('pre').first();
  await expect(block).toContainText('export function double(n: number)');
  const code = block.locator('code[data-highlighted]');
  await expect(code).toBeVisible();
  // Every coloured token carries both schemes' colours; the keyword and the number differ in colour.
  const colours = await code.locator('span[style]').evaluateAll((spans) => spans.map((s) => (s as HTMLElement).style.color));
  expect(colours.length).toBeGreaterThan(4);
  expect(colours.every((c) => c.startsWith('light-dark('))).toBe(true);
  expect(new Set(colours).size).toBeGreaterThan(2);
  await expect(page.getByRole('button', { name: 'Copy code' }).first()).toBeVisible();
});

test('scrolling up while an answer streams stops the auto-scroll, and "Jump to latest" goes back down', async ({
  page,
  context,
  baseURL,
}) => {
  await page.setViewportSize({ width: 390, height: 640 });
  await signedInUser(context, appOrigin(baseURL), 'scroll');
  await page.goto('/');
  // A long message gives a long, slowly streamed answer (the demo model quotes it word by word).
  await sendWithEnter(page, words(260));
  const id = await waitForConversation(page);
  const scroller = page.getByTestId('conversation-scroller');
  await expect(page.getByTestId('streaming-message')).toBeVisible();

  await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
  const jump = page.getByTestId('jump-to-latest');
  await expect(jump).toBeVisible();
  // The reader stays where they are while text keeps arriving: wait until more has streamed in.
  const streaming = page.getByTestId('streaming-message');
  const shown = (await streaming.textContent())?.length ?? 0;
  await expect.poll(async () => (await streaming.textContent())?.length ?? 0).toBeGreaterThan(shown + 200);
  expect(await scroller.evaluate((el) => el.scrollTop)).toBeLessThan(50);

  await jump.click();
  await expect(jump).toBeHidden();
  await expect.poll(() => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(80);
  await waitForIdle(page.request, id);
});
