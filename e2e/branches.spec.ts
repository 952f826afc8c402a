import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';

import {
  appOrigin,
  DEMO_CLOSING,
  jsonWrite,
  newUser,
  sendWithEnter,
  signInViaApi,
  signUpViaApi,
  waitForConversation,
  waitForIdle,
} from './helpers';

// Edit, regenerate and versions in Chromium against the demo model. `[demo:history]` makes the demo
// answer open with the history it received (lib/model/demo/history-echo.ts): which of the person's
// messages, and how many answers, so the test sees that only the active path reached the model.

const ALPHA = 'Alpha asks about tomatoes';
const BRAVO = 'Bravo asks about basil [demo:history]';
const CHARLIE = 'Charlie asks about mint instead [demo:history]';
/** How the demo opens an answer to these messages (and one answer between each two). */
const heard = (...texts: string[]) => {
  const quoted = texts.map((t) => `“${t.replace(' [demo:history]', '')}”`).join(', ');
  return `I received ${texts.length} messages from you: ${quoted}; and ${texts.length - 1} answer of mine.`;
};

/** Serious or critical axe findings on the page as it is now. */
async function axeFindings(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

const userMessages = (page: Page) => page.getByTestId('user-message');
const answers = (page: Page) => page.getByTestId('assistant-message');
const versions = (message: Locator) => message.getByTestId('branch-switcher');

test('edit, switch versions, regenerate; the model gets the active path only; nothing branches while a call waits', async ({
  page,
  baseURL,
}) => {
  // Five turns, a share and four axe passes in one story: about 25 s alone, more on a loaded machine.
  test.setTimeout(120_000);
  const origin = appOrigin(baseURL);
  const user = newUser('branches');
  await signUpViaApi(page.request, origin, user);
  await signInViaApi(page.request, user.email, user.password);
  await page.goto('/');

  await sendWithEnter(page, ALPHA);
  const id = await waitForConversation(page);
  await expect(answers(page).last()).toContainText(DEMO_CLOSING);
  await sendWithEnter(page, BRAVO);
  await expect(answers(page).last()).toContainText(heard(ALPHA, BRAVO));
  await expect(answers(page).last()).toContainText(DEMO_CLOSING);

  await test.step('edit the second message: a new branch, and the model heard only it', async () => {
    const bravo = userMessages(page).nth(1);
    await bravo.hover();
    await bravo.getByRole('button', { name: 'Edit message' }).click();
    const editor = page.getByRole('textbox', { name: 'Edit your message' });
    await expect(editor).toBeFocused();
    await expect(editor).toHaveValue(BRAVO);
    // Esc cancels and gives focus back to Edit; the message is as it was.
    await editor.press('Escape');
    await expect(editor).toBeHidden();
    await expect(bravo.getByRole('button', { name: 'Edit message' })).toBeFocused();
    await page.keyboard.press('Enter');
    await editor.fill(CHARLIE);
    expect(await axeFindings(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save & send' }).click();

    await expect(userMessages(page)).toHaveCount(2);
    await expect(userMessages(page).nth(1)).toContainText(CHARLIE);
    await expect(versions(userMessages(page).nth(1))).toContainText('2 / 2');
    await expect(answers(page).last()).toContainText(heard(ALPHA, CHARLIE));
    await expect(answers(page).last()).toContainText(DEMO_CLOSING);
    await expect(page.getByText(BRAVO)).toHaveCount(0);
  });

  await test.step('‹ 1/2 › shows the old branch with its answer, one PUT per click, and a reload keeps it', async () => {
    const puts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().endsWith(`/api/conversations/${id}/active`)) puts.push(r.url());
    });
    await versions(userMessages(page).nth(1)).getByRole('button', { name: 'Previous version' }).click();
    await expect(userMessages(page).nth(1)).toContainText(BRAVO);
    await expect(versions(userMessages(page).nth(1))).toContainText('1 / 2');
    await expect(answers(page).last()).toContainText(heard(ALPHA, BRAVO));
    expect(puts).toHaveLength(1);
    expect(await axeFindings(page)).toEqual([]);

    await page.reload();
    await expect(userMessages(page).nth(1)).toContainText(BRAVO);
    await expect(versions(userMessages(page).nth(1))).toContainText('1 / 2');
    await expect(answers(page).last()).toContainText(heard(ALPHA, BRAVO));
  });

  await test.step('Regenerate gives the answer a second version, asked with the same path', async () => {
    const answer = answers(page).last();
    await answer.hover();
    await answer.getByRole('button', { name: 'Regenerate answer' }).click();
    await expect(versions(answers(page).last())).toContainText('2 / 2');
    // Still one answer of mine: the first version of this answer is not in the history.
    await expect(answers(page).last()).toContainText(heard(ALPHA, BRAVO));
    await expect(answers(page).last()).toContainText(DEMO_CLOSING);
    await expect(userMessages(page).nth(1)).toContainText(BRAVO);
    await waitForIdle(page.request, id);
  });

  await test.step('a share link shows the branch on screen, with nothing to edit, regenerate or switch', async () => {
    const made = await page.request.post(`/api/conversations/${id}/shares`, { headers: jsonWrite(origin), data: {} });
    expect(made.status(), await made.text()).toBe(201);
    await page.goto(new URL(((await made.json()) as { url: string }).url).pathname);
    await expect(userMessages(page).nth(1)).toContainText(BRAVO);
    await expect(page.getByText(CHARLIE)).toHaveCount(0);
    await expect(answers(page)).toHaveCount(2);
    for (const name of ['Edit message', 'Regenerate answer', 'Previous version', 'Next version'])
      await expect(page.getByRole('button', { name })).toHaveCount(0);
    await page.goto(`/c/${id}`);
  });

  await test.step('while a call waits for approval, nothing can be edited, regenerated or switched, and the server says why', async () => {
    const grant = await page.request.put(`/api/conversations/${id}/grants`, {
      headers: jsonWrite(origin),
      data: { scope: 'tool:builtin-notes/delete', enabled: true },
    });
    expect(grant.status(), await grant.text()).toBe(200);
    await sendWithEnter(page, 'call notes__delete {"id": "6f1c1c3e-2b8a-4c1e-9a55-0d6f4c2f9e11", "confirmTitle": "Old plans"}');
    await expect(page.getByTestId('approval-card')).toBeVisible();

    const edit = userMessages(page).first().getByRole('button', { name: 'Edit message' });
    await expect(edit).toBeDisabled();
    await expect(edit).toHaveAttribute('title', /waiting for your decision/);
    const regenerate = answers(page).first().getByRole('button', { name: 'Regenerate answer' });
    await expect(regenerate).toBeDisabled();
    const next = versions(userMessages(page).nth(1)).getByRole('button', { name: 'Next version' });
    await expect(next).toBeDisabled();
    await expect(next).toHaveAttribute('title', /waiting for your decision/);
    // Clicking a refused control sends nothing and changes nothing.
    await edit.click({ force: true });
    await expect(page.getByRole('textbox', { name: 'Edit your message' })).toHaveCount(0);

    const refused = await page.request.post(`/api/conversations/${id}/regenerate`, {
      headers: jsonWrite(origin),
      data: { messageId: await firstAnswerId(page, id) },
    });
    expect(refused.status()).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/approv/i);
    expect(await axeFindings(page)).toEqual([]);
  });
});

async function firstAnswerId(page: Page, conversationId: string): Promise<string> {
  const res = await page.request.get(`/api/conversations/${conversationId}`);
  const view = (await res.json()) as { messages: { id: string; role: string }[] };
  return view.messages.find((m) => m.role === 'assistant')!.id;
}
