import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequest, type APIRequestContext, type Browser } from '@playwright/test';

import { appOrigin, jsonWrite, signedInUser, signInViaApi, signUpViaApi, waitForIdle, type TestUser } from './helpers';

/** Signs a second, separate browser in as `user`; returns it with a page showing the app. */
async function secondBrowser(browser: Browser, baseURL: string | undefined, user: TestUser) {
  const context = await browser.newContext({ baseURL });
  const location = await signInViaApi(context.request, user.email, user.password);
  expect(new URL(location, baseURL).pathname).toBe('/');
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.locator('#composer')).toBeVisible();
  return { context, page };
}

/** Where a fresh browser's password sign-in lands: `/` when it worked. */
async function signInLandsOn(playwright: { request: APIRequest }, baseURL: string | undefined, user: TestUser, password: string) {
  const context = await playwright.request.newContext({ baseURL });
  try {
    const location = new URL(await signInViaApi(context, user.email, password), baseURL);
    return `${location.pathname}${location.search}`;
  } finally {
    await context.dispose();
  }
}

/** A conversation with a finished turn that created a note (approved over the API, as the card's button does). */
async function conversationWithNote(request: APIRequestContext, origin: string, tag: string): Promise<string> {
  const created = await request.post('/api/conversations', { headers: jsonWrite(origin), data: { title: `Trip ${tag}` } });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  // Creating a note is off until switched on in the conversation (the Tools panel does this PUT).
  const granted = await request.put(`/api/conversations/${id}/grants`, {
    headers: jsonWrite(origin),
    data: { scope: 'tool:builtin-notes/create', enabled: true },
  });
  expect(granted.status(), await granted.text()).toBe(200);
  const text = `call notes__create {"title": "Passport ${tag}", "body": "in the drawer"}`;
  expect((await request.post(`/api/conversations/${id}/messages`, { headers: jsonWrite(origin), data: { text } })).status()).toBe(202);
  let call: { id: string; argsHash: string } | undefined;
  await expect
    .poll(async () => {
      const view = (await (await request.get(`/api/conversations/${id}`)).json()) as {
        toolCalls: { id: string; status: string; argsHash: string }[];
      };
      call = view.toolCalls.find((c) => c.status === 'pending_approval');
      return Boolean(call);
    })
    .toBe(true);
  const decided = await request.post(`/api/tool-calls/${call!.id}/decision`, {
    headers: jsonWrite(origin),
    data: { decision: 'allow_once', argsHash: call!.argsHash },
  });
  expect(decided.ok(), await decided.text()).toBe(true);
  await waitForIdle(request, id);
  return id;
}

test('changing the password signs out another signed-in browser; this one stays in', async ({ page, browser, playwright, baseURL }) => {
  const origin = appOrigin(baseURL);
  const user = await signedInUser(page.context(), origin, 'pw-change');
  const other = await secondBrowser(browser, baseURL, user);
  try {
    await page.goto('/');
    await page.getByRole('link', { name: 'Account' }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/account');
    await expect(page.getByTestId('session-list').getByRole('listitem')).toHaveCount(2);

    const newPassword = `new ${randomBytes(6).toString('hex')}`;
    await page.getByLabel('Current password').fill(user.password);
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('New password again').fill(newPassword);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('status')).toHaveText('Password changed. 1 other session was signed out.');

    // The other browser's next page load lands on sign-in; its API calls are refused.
    await other.page.reload();
    await expect(other.page).toHaveURL((url) => url.pathname === '/sign-in');
    expect((await other.context.request.get('/api/conversations')).status()).toBe(401);

    // This browser is still signed in.
    await page.reload();
    await expect(page.getByTestId('session-list').getByRole('listitem')).toHaveCount(1);
    expect((await page.request.get('/api/conversations')).status()).toBe(200);

    expect(await signInLandsOn(playwright, baseURL, user, user.password)).toBe('/sign-in?error=CredentialsSignin&code=credentials');
    expect(await signInLandsOn(playwright, baseURL, user, newPassword)).toBe('/');
  } finally {
    await other.context.close();
  }
});

test('deleting the account removes its conversations, notes and sessions', async ({ page, browser, playwright, baseURL }) => {
  const origin = appOrigin(baseURL);
  const user = await signedInUser(page.context(), origin, 'leaving');
  const tag = randomBytes(4).toString('hex');
  const conversationId = await conversationWithNote(page.request, origin, tag);
  const other = await secondBrowser(browser, baseURL, user);
  try {
    // The export has it all first.
    const exported = await page.request.get('/api/account/export');
    expect(exported.status()).toBe(200);
    expect(exported.headers()['content-disposition']).toMatch(/^attachment; filename="switchboard-export-\d{4}-\d\d-\d\d\.json"$/);
    const data = await exported.text();
    for (const expected of [`Trip ${tag}`, `Passport ${tag}`, 'notes__create', user.email]) expect(data).toContain(expected);
    expect(data).not.toContain('scrypt$');

    await page.goto('/account');
    const remove = page.getByRole('button', { name: 'Delete my account' });
    await page.getByLabel(`Type ${user.email} to confirm`).fill('someone-else@example.test');
    await expect(remove).toBeDisabled();
    await page.getByLabel(`Type ${user.email} to confirm`).fill(user.email);
    await remove.click();
    await expect(page).toHaveURL((url) => url.pathname === '/sign-in');

    // Every session is dead, this one and the other browser's.
    expect((await page.request.get(`/api/conversations/${conversationId}`)).status()).toBe(401);
    await other.page.reload();
    await expect(other.page).toHaveURL((url) => url.pathname === '/sign-in');
    expect(await signInLandsOn(playwright, baseURL, user, user.password)).toBe('/sign-in?error=CredentialsSignin&code=credentials');

    // Someone taking the email afterwards finds nothing of the old account.
    const fresh = await playwright.request.newContext({ baseURL });
    try {
      await signUpViaApi(fresh, origin, user);
      expect(new URL(await signInViaApi(fresh, user.email, user.password), baseURL).pathname).toBe('/');
      expect(((await (await fresh.get('/api/conversations')).json()) as { conversations: unknown[] }).conversations).toEqual([]);
      expect((await fresh.get(`/api/conversations/${conversationId}`)).status()).toBe(404);
      const again = await (await fresh.get('/api/account/export')).text();
      expect(again).not.toContain(tag);
    } finally {
      await fresh.dispose();
    }
  } finally {
    await other.context.close();
  }
});

test('account writes need our Origin and a session; a dead reset link says so', async ({ page, playwright, baseURL }) => {
  const origin = appOrigin(baseURL);
  const user = await signedInUser(page.context(), origin, 'account-guard');
  const foreign = await page.request.delete('/api/account', { headers: jsonWrite('http://evil.example'), data: { confirm: user.email } });
  expect(foreign.status()).toBe(403);
  const noOrigin = await page.request.post('/api/account/password', {
    headers: { 'Content-Type': 'application/json' },
    data: { currentPassword: user.password, newPassword: 'whatever else' },
  });
  expect(noOrigin.status()).toBe(403);
  const anon = await playwright.request.newContext({ baseURL });
  try {
    for (const res of [
      await anon.get('/api/account/sessions'),
      await anon.get('/api/account/export'),
      await anon.delete('/api/account/sessions/others', { headers: jsonWrite(origin) }),
      await anon.delete('/api/account', { headers: jsonWrite(origin), data: { confirm: user.email } }),
    ]) {
      expect(res.status()).toBe(401);
    }
  } finally {
    await anon.dispose();
  }
  expect((await page.request.get('/api/conversations')).status()).toBe(200); // nothing above touched the account

  await page.goto(`/reset-password?token=${randomBytes(32).toString('base64url')}`);
  await expect(page.getByRole('main').getByRole('alert')).toHaveText(
    'This reset link has expired or was already used. Ask the operator for a new one.',
  );
});
