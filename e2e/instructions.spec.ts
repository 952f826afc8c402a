import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

import { appOrigin, DEMO_CLOSING, sendWithEnter, signedInUser, waitForConversation, waitForIdle } from './helpers';

// Instructions (issue 23): the person's own on the account page and a conversation's own in its
// header reach the model as system text. The demo model opens a plain answer by quoting the first
// line of each kind it received in the request's system text (lib/model/demo/instructions-ack.ts),
// so what the model got is read off the answer.

const PERSONAL = 'I am Ada, a botanist in Lyon.\nUse metric units.';
const CONVERSATION = 'Answer in French.\nKeep it short.';
const PERSONAL_ACK = 'I received your instructions for every conversation, starting “I am Ada, a botanist in Lyon.”';
const BOTH_ACK = `${PERSONAL_ACK}, and for this conversation, starting “Answer in French.”.`;

const serious = async (page: Page, include?: string) => {
  const axe = new AxeBuilder({ page });
  if (include) axe.include(include);
  return (await axe.analyze()).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`);
};

test('personal and conversation instructions: set in the page, they reach the model as system text', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'instructions');

  // The account page: count, the limit said under the field, then saved.
  await page.goto('/account');
  const section = page.getByRole('region', { name: 'Instructions' });
  const field = section.getByLabel('Your instructions');
  await field.fill('x'.repeat(4001));
  await expect(section.getByTestId('personal-instructions-count')).toHaveText('4,001 / 4,000 characters');
  await section.getByRole('button', { name: 'Save instructions' }).click();
  await expect(section.getByText('Instructions must be at most 4,000 characters (this is 4,001).')).toBeVisible();
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await field.fill(PERSONAL);
  await expect(field).not.toHaveAttribute('aria-invalid', 'true');
  await section.getByRole('button', { name: 'Save instructions' }).click();
  await expect(section.getByTestId('personal-instructions-status')).toHaveText('Saved.');
  expect(await serious(page), 'account page').toEqual([]);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Instructions' }).getByLabel('Your instructions')).toHaveValue(PERSONAL);

  // A conversation: the model received the personal instructions.
  await page.goto('/');
  await sendWithEnter(page, 'Hello there');
  const conversationId = await waitForConversation(page);
  const answers = page.getByTestId('assistant-message');
  await expect(answers.first()).toContainText(DEMO_CLOSING, { timeout: 20_000 });
  await expect(answers.first()).toContainText(PERSONAL_ACK);
  await expect(answers.first()).not.toContainText('for this conversation');

  // The conversation's own, from its header.
  const button = page.getByTestId('conversation-instructions-button').locator('visible=true');
  await expect(button).toHaveAttribute('data-set', 'false');
  await button.click();
  const dialog = page.getByRole('dialog', { name: 'Instructions for this conversation' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Instructions', { exact: true }).fill(CONVERSATION);
  await expect(dialog.getByTestId('conversation-instructions-count')).toHaveText(`${CONVERSATION.length} / 4,000 characters`);
  expect(await serious(page, 'dialog'), 'instructions dialog').toEqual([]);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(button).toHaveAttribute('data-set', 'true');
  await expect(button).toHaveAccessibleName('Instructions (set for this conversation)');

  await sendWithEnter(page, 'What should I plant in spring?');
  await waitForIdle(page.request, conversationId);
  await expect(answers.nth(1)).toContainText(BOTH_ACK);

  // After a reload the header is still marked and the dialog shows them; Remove takes them away.
  await page.reload();
  const again = page.getByTestId('conversation-instructions-button').locator('visible=true');
  await expect(again).toHaveAttribute('data-set', 'true');
  await again.click();
  await expect(dialog.getByLabel('Instructions', { exact: true })).toHaveValue(CONVERSATION);
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(dialog).toBeHidden();
  await expect(again).toHaveAttribute('data-set', 'false');
  await sendWithEnter(page, 'And in autumn?');
  await waitForIdle(page.request, conversationId);
  await expect(answers.nth(2)).toContainText(DEMO_CLOSING);
  await expect(answers.nth(2)).toContainText(PERSONAL_ACK);
  await expect(answers.nth(2)).not.toContainText('for this conversation');
});
