import { expect, test } from '@playwright/test';

import { TEST_IDP_ACCOUNTS } from '../test/fixtures/oidc-idp-accounts';
import { OIDC_IDP_ISSUER, OIDC_IDP_NAME } from './fixtures/ports';

// Single sign-on in Chromium: the app's AUTH_OIDC_* point at the test IdP (oidc-provider on
// loopback, playwright.config.ts). The flow, its linking rules and AUTH_PASSWORD=off are tested
// against the real Auth.js handler in lib/auth/sso.test.ts; this is the person's path through it.

test('continue with the IdP: its login page, then back in the app, signed in as the IdP says', async ({ page }) => {
  test.setTimeout(20_000);
  const vera = TEST_IDP_ACCOUNTS['sub-verified']!;
  await page.goto('/sign-in');
  const sso = page.getByRole('button', { name: `Continue with ${OIDC_IDP_NAME}` });
  // Above the email form, enabled once the CSRF token is in.
  const [ssoBox, emailBox] = [await sso.boundingBox(), await page.locator('#field-email').boundingBox()];
  expect(ssoBox!.y).toBeLessThan(emailBox!.y);
  await expect(sso).toBeEnabled();
  await sso.click();

  // The IdP's own page (oidc-provider's login form: any password).
  await expect(page).toHaveURL((url) => url.origin === OIDC_IDP_ISSUER);
  await page.locator('input[name="login"]').fill('sub-verified');
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();

  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.locator('#composer')).toBeVisible();
  await expect(page.getByRole('complementary', { name: 'Conversations' }).getByText(vera.name)).toBeVisible();
  await page.goto('/account');
  await expect(page.getByText(`Signed in as ${vera.email}`)).toBeVisible();
});
