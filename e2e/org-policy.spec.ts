import { expect, test } from '@playwright/test';

import { appOrigin, conversationWithTools, jsonWrite, signedInUser } from './helpers';

// The organization's admin page (issue 26): an owner changes the policy in the form, and a member's
// Tools panel shows the tool left out with the organization's reason; the member cannot reach the
// admin page. Screenshots of the page go to test-results/ for people to look at.

test('admin policy page: a forbidden tool is left out of a member’s Tools panel, with the reason', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const adminContext = await browser.newContext();
  const memberContext = await browser.newContext();
  await signedInUser(adminContext, origin, 'org-admin');
  const member = await signedInUser(memberContext, origin, 'org-member');

  // The admin makes an organization on the account page and invites the member, who accepts.
  const page = await adminContext.newPage();
  await page.goto('/account');
  await page.getByLabel('New organization').fill('Acme Research');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await expect(page.getByTestId('org-list')).toContainText('Acme Research');
  // Members are told what the organization's admins see of them.
  await expect(
    page.getByTestId('org-list').getByRole('listitem').filter({ hasText: 'Acme Research' }).getByTestId('org-sees'),
  ).toContainText('never the arguments or results');
  const orgs = (await (await adminContext.request.get('/api/orgs')).json()) as { orgs: { id: string; name: string }[] };
  const org = orgs.orgs.find((o) => o.name === 'Acme Research')!;
  const invite = await adminContext.request.post(`/api/orgs/${org.id}/invitations`, { headers: jsonWrite(origin) });
  const token = new URL(((await invite.json()) as { url: string }).url).pathname.split('/').pop()!;
  expect((await memberContext.request.post(`/api/invitations/${token}/accept`, { headers: jsonWrite(origin) })).status()).toBe(200);

  // The member's Tools panel before: notes "create" can be switched on.
  const memberPage = await memberContext.newPage();
  await conversationWithTools(memberPage, origin, []);

  await page.getByTestId('org-list').getByRole('listitem').filter({ hasText: 'Acme Research' }).getByTestId('org-admin-link').click();
  await expect(page.getByRole('heading', { name: 'Acme Research' })).toBeVisible();
  await expect(page.getByTestId('member')).toHaveCount(2);
  await expect(page.getByTestId('members')).toContainText(member.email);
  await page.screenshot({ path: 'test-results/org-admin-before.png', fullPage: true });

  const form = page.getByTestId('policy-form');
  await form.getByLabel('Never these servers and tools').fill('notes__create');
  await form.getByLabel('Longest a grant may last').selectOption('1h');
  await form.getByRole('switch', { name: 'Public links' }).click();
  await form.getByRole('button', { name: 'Save policy' }).click();
  await expect(page.getByTestId('policy-status')).toHaveText(/Saved/);
  await page.screenshot({ path: 'test-results/org-admin-after.png', fullPage: true });
  // Saved for real: the page shows it again after a reload.
  await page.reload();
  await expect(page.getByTestId('policy-form').getByLabel('Never these servers and tools')).toHaveValue('notes__create');

  // The member: the tool is left out with the organization's reason; grants last at most 1 hour.
  await memberPage.reload();
  await memberPage.getByRole('button', { name: /^Tools/ }).click();
  const panel = memberPage.getByRole('dialog', { name: 'Tools' });
  const row = panel.getByRole('region', { name: 'Notes', exact: true }).locator('[data-testid="panel-tool"][data-tool="create"]');
  await expect(row).toContainText('Your organization "Acme Research" does not allow the tool "notes__create".');
  await expect(row.getByRole('switch')).toHaveCount(0);
  await expect(panel.getByTestId('org-grant-length')).toContainText('does not allow grants longer than 1 hour');
  await memberPage.screenshot({ path: 'test-results/org-member-tools.png' });

  // The Account page's tool picker for a token: the tool is listed, not pickable, with the reason.
  await memberPage.goto('/account');
  const picker = memberPage.getByTestId('new-token-tools');
  const forbidden = picker.locator('[data-testid="picker-tool"][data-tool="notes__create"]');
  await expect(forbidden.getByRole('checkbox')).toBeDisabled();
  await expect(forbidden).toContainText('Your organization "Acme Research" does not allow the tool "notes__create".');
  await expect(picker.locator('[data-testid="picker-tool"][data-tool="notes__search"]').getByRole('checkbox')).toBeEnabled();
  await forbidden.scrollIntoViewIfNeeded();
  await memberPage.screenshot({ path: 'test-results/org-member-token-picker.png' });

  // A member does not reach the admin page or its routes.
  await memberPage.goto(`/orgs/${org.id}/admin`);
  await expect(memberPage.getByTestId('admin-forbidden')).toContainText('Only an organization');
  expect((await memberContext.request.get(`/api/orgs/${org.id}/policy`)).status()).toBe(403);

  await adminContext.close();
  await memberContext.close();
});
