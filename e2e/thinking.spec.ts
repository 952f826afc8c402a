import { expect, test } from '@playwright/test';

import { appOrigin, DEMO_CLOSING, sendWithEnter, signedInUser, waitForConversation, waitForIdle } from './helpers';

test('extended thinking: switched on for a conversation, the next answer starts with the model’s thinking, folded', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'thinking');
  await page.goto('/');
  await sendWithEnter(page, 'Hello there');
  const conversationId = await waitForConversation(page);
  const answers = page.getByTestId('assistant-message');
  await expect(answers.first()).toContainText(DEMO_CLOSING, { timeout: 20_000 });
  await expect(answers.first().getByTestId('thinking-section')).toHaveCount(0);

  const toggle = page.getByTestId('thinking-toggle');
  await expect(toggle).toHaveAttribute('aria-checked', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByText('Extended thinking: on, up to 8,000 tokens')).toBeVisible();

  await sendWithEnter(page, 'What should I cook tonight?');
  await waitForIdle(page.request, conversationId);
  const second = answers.nth(1);
  await expect(second).toContainText(DEMO_CLOSING);
  const thinking = second.getByTestId('thinking-section');
  await expect(thinking).toHaveCount(1);
  // Folded: the summary shows, the thinking itself only once opened.
  await expect(thinking).not.toHaveAttribute('open', '');
  const thought = thinking.getByText('The person wrote: “What should I cook tonight?”', { exact: false });
  await expect(thought).toBeHidden();
  await thinking.getByText('Thinking', { exact: true }).click();
  await expect(thought).toBeVisible();

  // After a reload the setting and the stored thinking are still there.
  await page.reload();
  await expect(page.getByTestId('thinking-toggle')).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByTestId('assistant-message').nth(1).getByTestId('thinking-section')).toHaveCount(1);
});
