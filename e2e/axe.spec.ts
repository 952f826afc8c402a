import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

import {
  appOrigin,
  conversationWithTools,
  DEMO_CLOSING,
  newUser,
  sendWithEnter,
  signInViaApi,
  signUpViaApi,
  waitForConversation,
} from './helpers';

// axe-core on the pages people use most, at each state a turn passes through. Serious and critical
// findings fail the test; every finding is attached to the report.

test('axe: sign-in, sign-up, the empty chat, streaming, an answer, an approval and the tools panel have no serious violations', async ({
  page,
  baseURL,
}, testInfo) => {
  const found: Record<string, { id: string; impact?: string | null; help: string; nodes: number }[]> = {};
  const check = async (name: string) => {
    const { violations } = await new AxeBuilder({ page }).analyze();
    found[name] = violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  };

  try {
    await page.goto('/sign-in');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    expect(await check('sign-in')).toEqual([]);
    await page.goto('/sign-up');
    expect(await check('sign-up')).toEqual([]);

    const user = newUser('axe');
    await signUpViaApi(page.request, appOrigin(baseURL), user);
    await signInViaApi(page.request, user.email, user.password);
    await page.goto('/');
    await expect(page.locator('#composer')).toBeVisible();
    expect(await check('empty-chat')).toEqual([]);

    await sendWithEnter(page, `Check the answer page for accessibility, while it streams. ${'Many words. '.repeat(30)}`);
    await waitForConversation(page);
    await expect(page.getByTestId('streaming-message')).toBeVisible();
    expect(await check('streaming')).toEqual([]);
    await expect(page.getByTestId('assistant-message')).toContainText(DEMO_CLOSING, { timeout: 15_000 });
    expect(await check('answer')).toEqual([]);

    await conversationWithTools(page, appOrigin(baseURL), ['tool:builtin-notes/delete']);
    await sendWithEnter(page, 'call notes__delete {"id": "6f1c1c3e-2b8a-4c1e-9a55-0d6f4c2f9e11", "confirmTitle": "Old plans"}');
    await expect(page.getByTestId('approval-card')).toBeVisible();
    expect(await check('awaiting-approval')).toEqual([]);

    await page.getByRole('button', { name: /^Tools/ }).click();
    const panel = page.getByRole('dialog', { name: 'Tools' });
    await expect(panel.getByRole('region', { name: 'Notes', exact: true })).toBeVisible();
    await panel.getByTestId('model-sees').locator('summary').click();
    expect(await check('tools-panel')).toEqual([]);
  } finally {
    // Every finding, minor ones included, for whoever reads the report.
    await testInfo.attach('axe-violations.json', { body: JSON.stringify(found, null, 2), contentType: 'application/json' });
  }
});
