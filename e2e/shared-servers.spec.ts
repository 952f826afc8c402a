import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';

import {
  FIXTURE_API_KEY,
  FIXTURE_API_KEY_HEADER,
  FIXTURE_URL,
  OAUTH_FIXTURE_ORIGIN,
  OAUTH_FIXTURE_URL,
  OIDC_IDP_ISSUER,
  OIDC_IDP_NAME,
} from './fixtures/ports';
import { appOrigin, conversationWithTools, jsonWrite, sendWithEnter, signedInUser, waitForIdle } from './helpers';

// Shared servers (issue 26) in Chromium: people sign in through the test IdP (oidc-provider on
// loopback) and land in the organization that takes their email domain; its admin adds the OAuth
// fixture once as a shared server where each member signs in with their own account, connects to
// review its tools and approves them; two members connect, each with their own account, and their
// calls carry their own tokens (the fixture names the grant a call's token came from); an expired
// access token is refreshed without the member seeing anything. Screenshots go to test-results/.

const DOMAIN = 'shared.test';

// The IdP's people join by their first sign-in, and the domain is taken once per app: a retry would meet both done.
test.describe.configure({ retries: 0 });

/** "Continue with" the IdP, its login page (any password), and back in the app. */
async function signInWithIdp(browser: Browser, login: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/sign-in');
  const sso = page.getByRole('button', { name: `Continue with ${OIDC_IDP_NAME}` });
  await expect(sso).toBeEnabled();
  await sso.click();
  await expect(page).toHaveURL((url) => url.origin === OIDC_IDP_ISSUER);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  return { context, page };
}

/** What the OAuth fixture has seen: refreshes, and each tool call's grant (whose sign-in its token came from). */
async function fixtureState(page: Page): Promise<{ counts: { refresh: number }; calls: { name: string; grant: string }[] }> {
  const res = await page.request.get(`${OAUTH_FIXTURE_ORIGIN}/test/state`);
  expect(res.status()).toBe(200);
  return (await res.json()) as { counts: { refresh: number }; calls: { name: string; grant: string }[] };
}

/** Connect on the servers page: the member's own sign-in at the provider, and back connected. */
async function connectOnServersPage(page: Page, orgName: string): Promise<string> {
  await page.goto('/servers');
  const section = page.getByTestId('org-servers');
  const card = section.getByRole('region', { name: 'Tracker', exact: true });
  await expect(card.getByTestId('server-org')).toHaveText(`${orgName} · required`);
  await expect(card.getByTestId('server-status')).toHaveText('Needs sign-in');
  // Theirs to use, not to change.
  await expect(card.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Remove' })).toHaveCount(0);
  await card.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/servers' && url.searchParams.get('oauth') === 'connected');
  await expect(card.getByTestId('server-status')).toHaveText('Connected');
  const list = (await (await page.request.get('/api/servers')).json()) as { servers: { id: string; name: string; org: unknown }[] };
  return list.servers.find((s) => s.name === 'Tracker' && s.org)!.id;
}

/** Calls tracker__whoami in a new conversation (allowed once) and returns the grant its answer names. */
async function whoami(page: Page, origin: string, serverId: string): Promise<string> {
  const id = await conversationWithTools(page, origin, [`server:${serverId}/*`]);
  await sendWithEnter(page, 'call tracker__whoami {}');
  await page.getByTestId('approval-card').getByRole('button', { name: 'Allow once' }).click();
  await waitForIdle(page.request, id);
  await expect(page.getByTestId('sign-in-card')).toHaveCount(0);
  await expect(page.getByTestId('tool-call').first()).toHaveAttribute('data-status', 'succeeded');
  const answer = page.getByTestId('assistant-message').last();
  await expect(answer).toContainText(/whoami ran with scopes: mcp:read[^(]*\(grant \w+\)/);
  return /\(grant (\w+)\)/.exec((await answer.textContent()) ?? '')![1]!;
}

test('an admin shares a server with per-person OAuth; members connect and use it with their own tokens, refreshed unseen', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const origin = appOrigin(baseURL);

  // The admin signs in through the IdP, makes the organization and has it take the domain.
  const admin = await signInWithIdp(browser, 'sub-shared-admin');
  const orgName = `Shared Co ${Date.now().toString(36)}`;
  const made = await admin.page.request.post('/api/orgs', { headers: jsonWrite(origin), data: { name: orgName } });
  expect(made.status(), await made.text()).toBe(201);
  const org = (await made.json()) as { id: string };
  const domain = await admin.page.request.patch(`/api/orgs/${org.id}`, { headers: jsonWrite(origin), data: { joinDomain: DOMAIN } });
  expect(domain.status(), await domain.text()).toBe(200);

  // Two people of the domain sign in for the first time and land in it as members.
  const mia = await signInWithIdp(browser, 'sub-shared-member');
  const otto = await signInWithIdp(browser, 'sub-shared-other');
  for (const m of [mia, otto]) {
    const orgs = (await (await m.page.request.get('/api/orgs')).json()) as { orgs: { id: string; role: string }[] };
    expect(orgs.orgs).toContainEqual(expect.objectContaining({ id: org.id, role: 'member' }));
  }

  await test.step('the admin adds the server once, connects with their own account and approves its tools', async () => {
    const page = admin.page;
    await page.goto(`/orgs/${org.id}/admin`);
    const form = page.getByTestId('add-shared-server');
    await form.getByLabel('Name').fill('Tracker');
    await form.getByLabel('URL').fill(OAUTH_FIXTURE_URL);
    await expect(form.getByLabel('How members sign in to it')).toHaveValue('oauth');
    await expect(form.getByRole('switch', { name: 'Required for every member' })).toHaveAttribute('aria-checked', 'true');
    await form.getByRole('button', { name: 'Add shared server' }).click();
    const card = page.getByTestId('shared-server').filter({ hasText: 'Tracker' });
    await expect(card.getByTestId('shared-status')).toHaveText('Needs sign-in');
    await card.getByRole('button', { name: 'Connect to review' }).click();
    await expect(page).toHaveURL((url) => url.pathname === `/orgs/${org.id}/admin` && url.searchParams.get('oauth') === 'connected');
    await expect(card.getByTestId('shared-review')).toContainText('whoami');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `test-results/shared-servers-admin-review-${scheme}.png`, fullPage: true });
    }
    await card.getByRole('button', { name: 'Approve these tools for members' }).click();
    await expect(card.getByTestId('shared-approved')).toHaveText('2');
    await expect(card.getByTestId('shared-review')).toHaveCount(0);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  let miaGrant = '';
  await test.step('a member connects with their own account and uses it in a conversation', async () => {
    const serverId = await connectOnServersPage(mia.page, orgName);
    for (const scheme of ['light', 'dark'] as const) {
      await mia.page.emulateMedia({ colorScheme: scheme });
      await mia.page.getByTestId('org-servers').scrollIntoViewIfNeeded();
      await mia.page.screenshot({ path: `test-results/shared-servers-member-${scheme}.png`, fullPage: true });
    }
    await mia.page.emulateMedia({ colorScheme: 'light' });
    miaGrant = await whoami(mia.page, origin, serverId);
  });

  await test.step("another member's calls carry their own token, never hers", async () => {
    const ottoServer = await connectOnServersPage(otto.page, orgName);
    const ottoGrant = await whoami(otto.page, origin, ottoServer);
    expect(ottoGrant).not.toBe(miaGrant);
    const list = (await (await mia.page.request.get('/api/servers')).json()) as { servers: { id: string; name: string }[] };
    expect(await whoami(mia.page, origin, list.servers.find((s) => s.name === 'Tracker')!.id)).toBe(miaGrant);
  });

  await test.step('an expired access token is refreshed without the member seeing a sign-in', async () => {
    const before = await fixtureState(mia.page);
    expect((await mia.page.request.post(`${OAUTH_FIXTURE_ORIGIN}/test/expire-access-tokens`)).status()).toBe(200);
    const list = (await (await mia.page.request.get('/api/servers')).json()) as { servers: { id: string; name: string }[] };
    // Same grant (her refresh token), a new access token: one refresh reached the provider.
    expect(await whoami(mia.page, origin, list.servers.find((s) => s.name === 'Tracker')!.id)).toBe(miaGrant);
    const after = await fixtureState(mia.page);
    expect(after.counts.refresh - before.counts.refresh).toBe(1);
  });

  for (const c of [admin, mia, otto]) await c.context.close();
});

test('an admin renames a shared server and replaces its shared credential, whose value is never shown', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const context = await browser.newContext();
  await signedInUser(context, origin, 'shared-credential-admin');
  const page = await context.newPage();
  const made = await page.request.post('/api/orgs', { headers: jsonWrite(origin), data: { name: 'Keyed Co' } });
  expect(made.status(), await made.text()).toBe(201);
  const org = (await made.json()) as { id: string };
  const added = await page.request.post(`/api/orgs/${org.id}/servers`, {
    headers: jsonWrite(origin),
    data: { name: 'Fixture', url: FIXTURE_URL, auth: 'shared', headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY }, required: false },
  });
  expect(added.status(), await added.text()).toBe(201);

  await page.goto(`/orgs/${org.id}/admin`);
  const shared = page.getByTestId('shared-servers');
  const card = shared.getByRole('region', { name: 'Fixture', exact: true });
  await expect(card).toContainText(`${FIXTURE_API_KEY_HEADER} (value hidden)`);
  await card.getByRole('button', { name: 'Replace credential' }).click();
  const dialog = page.getByRole('dialog', { name: /Replace the credential/ });
  await expect(dialog.getByLabel('Header name')).toHaveValue(FIXTURE_API_KEY_HEADER);
  await expect(dialog.getByLabel('New header value')).toHaveValue('');
  const rotated = 'rotated-e2e-credential-7f3a';
  await dialog.getByLabel('New header value').fill(rotated);
  await page.screenshot({ path: 'test-results/shared-servers-replace-credential.png' });
  await dialog.getByRole('button', { name: 'Replace credential' }).click();
  await expect(dialog).toBeHidden();
  await expect(card).toContainText(`${FIXTURE_API_KEY_HEADER} (value hidden)`);
  // Never in the page nor in what the admin's page reads.
  expect(await page.content()).not.toContain(rotated);
  expect(await (await page.request.get(`/api/orgs/${org.id}/servers`)).text()).not.toContain(rotated);

  await card.getByRole('button', { name: 'Rename' }).click();
  const rename = page.getByRole('dialog', { name: /Rename/ });
  await rename.getByLabel('Name').fill('Fixture Renamed');
  await rename.getByRole('button', { name: 'Save name' }).click();
  await expect(rename).toBeHidden();
  await expect(shared.getByRole('region', { name: 'Fixture Renamed', exact: true })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('shared-servers').getByRole('region', { name: 'Fixture Renamed', exact: true })).toBeVisible();
  await page.screenshot({ path: 'test-results/shared-servers-renamed.png', fullPage: true });
  await context.close();
});
