import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

import { appOrigin, signedInUser } from './helpers';

/** Serious or critical axe findings on the page, by rule. */
async function serious(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include('section[aria-labelledby="tokens-heading"]').analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

test('personal access tokens: create one exposing a tool, shown once, copy it, see it listed, revoke it', async ({
  page,
  baseURL,
}, testInfo) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'tokens');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.goto('/account');
  const section = page.getByRole('region', { name: 'Personal access tokens' });
  await expect(section.getByText('No tokens yet.')).toBeVisible();
  await expect(section.getByRole('textbox', { name: 'MCP endpoint' })).toHaveValue(`${origin}/mcp`);

  await section.getByLabel('Token name').fill('CI runner');
  await section.getByLabel('Expires after').selectOption('90d');
  await section
    .getByRole('group', { name: /Tools it exposes/ })
    .getByLabel(/notes__search/)
    .check();
  await section.getByRole('button', { name: 'Create token' }).click();

  const shown = section.getByTestId('token-created');
  await expect(shown.getByText('you won’t see it again')).toBeVisible();
  const token = await shown.getByLabel('Your new token “CI runner”').inputValue();
  expect(token).toMatch(/^sbp_[A-Za-z0-9_-]{43}$/);
  await shown.getByRole('button', { name: 'Copy token' }).click();
  await expect(shown.getByRole('button', { name: 'Copied', exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

  const row = section.getByTestId('token-list').getByRole('listitem');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('CI runner');
  await expect(row).toContainText(`${token.slice(0, 8)}…`);
  await expect(row).toContainText('Never used');
  await expect(row).toContainText('Expires');
  await expect(row.getByTestId('token-tools')).toHaveText('Exposes notes__search');
  if (process.env.TOKENS_SCREENSHOT) {
    // For a person to look at (not a check): the section, and the dialog that changes what a token exposes.
    await page.setViewportSize({ width: 800, height: 2000 });
    await section.screenshot({ path: process.env.TOKENS_SCREENSHOT });
    await row.getByRole('button', { name: 'Tools of CI runner' }).click();
    await page.waitForTimeout(500); // the dialog's opening animation
    await page.setViewportSize({ width: 900, height: 700 });
    await page.screenshot({ path: process.env.TOKENS_SCREENSHOT.replace(/\.png$/, '-dialog.png') });
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  }

  const found: Record<string, string[]> = {};
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await section.scrollIntoViewIfNeeded();
    await testInfo.attach(`tokens-${colorScheme}.png`, { body: await section.screenshot(), contentType: 'image/png' });
    found[colorScheme] = await serious(page);
  }
  expect(found).toEqual({ light: [], dark: [] });

  // Shown once: after "I have copied it" the token is nowhere on the page, and the list never carries it.
  await shown.getByRole('button', { name: 'I have copied it' }).click();
  await expect(shown).toHaveCount(0);
  await expect(row).toHaveCount(1);
  expect(await page.content()).not.toContain(token);
  expect(await (await page.request.get('/api/account/tokens')).text()).not.toContain(token);

  await row.getByRole('button', { name: 'Revoke CI runner' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke “CI runner”?' });
  await expect(dialog).toContainText('stops working at once');
  await dialog.getByRole('button', { name: 'Revoke token' }).click();
  await expect(dialog).toBeHidden();
  await expect(section.getByText('No tokens yet.')).toBeVisible();
  const listed = (await (await page.request.get('/api/account/tokens')).json()) as { tokens: unknown[] };
  expect(listed.tokens).toEqual([]);
});
