import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Browser, type BrowserContext, type Page } from '@playwright/test';

import {
  appOrigin,
  jsonWrite,
  newUser,
  sendWithEnter,
  signInViaApi,
  signUpViaApi,
  waitForConversation,
  waitForIdle,
  type TestUser,
} from './helpers';

// Shareable conversation links (issue 10): a snapshot anyone with the link reads, signed out,
// read-only; hidden tool details never leave the server; revoked and expired links are 404s;
// signed-in-only links go through sign-in and back; a reader continues it in their own account;
// a turn waiting for the owner's approval is never shown to, nor decided by, a reader.
//
// One owner for the whole file (signed up once), with two finished conversations written at the
// start, side by side: plain ones and one with a tool call. Each test makes its own links; the
// test with a pending approval writes its own conversation.

/** A call whose result ends, past the 300 characters the demo model quotes, in a text found only in the result. */
const SECRET_RESULT = 'SEC-RET';
const SECRET_CALL = `call sandbox__run_js {"code": "'x'.repeat(320) + ['SEC','RET'].join('-')"}`;

const PLAIN_QUESTION = 'Plan a picnic for four';

let owner: TestUser;
let ownerState: Awaited<ReturnType<BrowserContext['storageState']>>;
/** The owner's finished conversations: plain questions and answers, and one with SECRET_CALL. */
let plain: string;
let withCall: string;
/** Only the first test makes links here, so it knows the whole list. */
let revocable: string;

test.beforeAll(async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const context = await browser.newContext({ baseURL });
  owner = newUser('share-owner');
  await signUpViaApi(context.request, origin, owner);
  await signInViaApi(context.request, owner.email, owner.password);
  ownerState = await context.storageState();
  [plain, withCall, revocable] = await Promise.all([
    conversationWith(context.request, origin, [PLAIN_QUESTION]),
    conversationWith(context.request, origin, [SECRET_CALL]),
    conversationWith(context.request, origin, [PLAIN_QUESTION]),
  ]);
  await context.close();
});

async function ownerPage(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const context = await browser.newContext({ baseURL, storageState: ownerState });
  return context.newPage();
}

/** A browser with no session at all: the link's reader. */
async function signedOutPage(browser: Browser, baseURL: string | undefined): Promise<Page> {
  return (await browser.newContext({ baseURL })).newPage();
}

/** A conversation with these messages sent one after the other, each turn finished (over the API). */
async function conversationWith(request: APIRequestContext, origin: string, texts: string[]): Promise<string> {
  const made = await request.post('/api/conversations', { headers: jsonWrite(origin), data: {} });
  expect(made.status(), await made.text()).toBe(201);
  const { id } = (await made.json()) as { id: string };
  for (const text of texts) {
    const sent = await request.post(`/api/conversations/${id}/messages`, { headers: jsonWrite(origin), data: { text } });
    expect(sent.status(), await sent.text()).toBe(202);
    await waitForIdle(request, id);
  }
  return id;
}

interface Created {
  id: string;
  url: string;
  token: string;
}

async function createLink(request: APIRequestContext, origin: string, conversationId: string, body: object = {}): Promise<Created> {
  const res = await request.post(`/api/conversations/${conversationId}/shares`, { headers: jsonWrite(origin), data: body });
  expect(res.status(), await res.text()).toBe(201);
  const { id, url } = (await res.json()) as { id: string; url: string };
  const path = new URL(url).pathname;
  expect(path).toMatch(/^\/share\/[^/]+$/);
  return { id, url, token: path.slice('/share/'.length) };
}

test('a link opens signed out, read-only; once revoked it is a 404, page and JSON', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const page = await ownerPage(browser, baseURL);
  await page.goto(`/c/${revocable}`);

  await page.getByRole('button', { name: 'Share', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /^Share/ });
  await expect(dialog.getByRole('switch', { name: 'Include tool arguments and results' })).toHaveAttribute('aria-checked', 'false');
  await dialog.getByRole('button', { name: 'Create link' }).click();
  const url = await dialog.getByLabel('Your new link').inputValue();
  expect(url).toMatch(new RegExp(`^${origin}/share/[^/]+$`));
  await expect(dialog).toContainText('this link is not shown again');
  await expect(dialog.getByTestId('share-link')).toHaveCount(1);
  // The list never carries the token.
  await expect(dialog.getByTestId('share-link')).not.toContainText(new URL(url).pathname);

  const reader = await signedOutPage(browser, baseURL);
  const opened = await reader.goto(url);
  expect(opened?.status()).toBe(200);
  await expect(reader.getByTestId('shared-subtitle')).toContainText('Shared conversation · snapshot of');
  await expect(reader.getByTestId('user-message')).toContainText(PLAIN_QUESTION);
  await expect(reader.getByTestId('assistant-message')).toContainText('This is the offline demo model');
  await expect(reader.locator('#composer')).toHaveCount(0);
  await expect(reader.getByTestId('tools-button')).toHaveCount(0);
  await expect(reader.getByTestId('share-button')).toHaveCount(0);
  await expect(reader.getByTestId('approval-card')).toHaveCount(0);
  await expect(reader.getByRole('button', { name: 'Continue in your account' })).toHaveCount(0);
  await expect(reader.getByRole('link', { name: 'Sign in to continue' })).toBeVisible();
  const token = new URL(url).pathname.split('/').pop()!;
  const json = await reader.request.get(`/api/share/${token}`);
  expect(json.status()).toBe(200);
  // Soft: the rest of the test still runs when a header is wrong.
  expect.soft(json.headers()['cache-control']).toBe('no-store');
  expect.soft(json.headers()['referrer-policy']).toBe('no-referrer');
  expect.soft(opened?.headers()['referrer-policy']).toBe('no-referrer');

  await dialog.getByTestId('share-link').getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('dialog', { name: 'Revoke this link?' }).getByRole('button', { name: 'Revoke' }).click();
  await expect(dialog).toContainText('No links yet');

  const gone = await reader.goto(url);
  expect(gone?.status()).toBe(404);
  await expect(reader.getByRole('heading', { name: 'This link does not open anything' })).toBeVisible();
  await expect(reader.getByTestId('user-message')).toHaveCount(0);
  expect((await reader.request.get(`/api/share/${token}`)).status()).toBe(404);
});

test('hidden tool details reach neither the page nor the JSON; included ones do', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const page = await ownerPage(browser, baseURL);
  const id = withCall;
  // The owner's own conversation has the argument and the whole result: the checks below can fail.
  const own = await (await page.request.get(`/api/conversations/${id}`)).text();
  expect(own).toContain(SECRET_RESULT);
  expect(own).toContain("'x'.repeat(320)");

  const hidden = await createLink(page.request, origin, id);
  const reader = await signedOutPage(browser, baseURL);
  const json = await reader.request.get(`/api/share/${hidden.token}`);
  expect(json.status()).toBe(200);
  const body = await json.text();
  expect(body).not.toContain(SECRET_RESULT);
  const view = JSON.parse(body) as {
    toolCalls: { input: unknown; result: unknown; detailsHidden: boolean }[];
    messages: { content: { type: string; input?: unknown }[] }[];
  };
  expect(view.toolCalls).toHaveLength(1);
  expect(view.toolCalls[0]).toMatchObject({ input: {}, result: null, detailsHidden: true });
  for (const block of view.messages.flatMap((m) => m.content)) {
    expect(block.type).not.toBe('tool_result');
    if (block.type === 'tool_use') expect(block.input).toEqual({});
  }

  await reader.goto(hidden.url);
  const card = reader.getByTestId('tool-call');
  await expect(card).toContainText('run_js');
  await expect(card).toContainText('Done');
  await expect(card).toContainText('Arguments and result hidden by the owner');
  await expect(card).not.toContainText('repeat(320)');
  // The whole document, the data React hydrates from included.
  expect(await reader.content()).not.toContain(SECRET_RESULT);

  const included = await createLink(page.request, origin, id, { includeToolDetails: true });
  expect(await (await reader.request.get(`/api/share/${included.token}`)).text()).toContain(SECRET_RESULT);
  await reader.goto(included.url);
  await reader.getByTestId('tool-call').locator('summary').click();
  await expect(reader.getByTestId('tool-call')).toContainText(SECRET_RESULT);
  await expect(reader.getByTestId('tool-call')).not.toContainText('See it in the activity log');
});

test('a signed-in-only link sends a signed-out reader to sign in, and back to the link afterwards', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const page = await ownerPage(browser, baseURL);
  const id = plain;
  const link = await createLink(page.request, origin, id, { audience: 'signed_in' });

  const reader = await signedOutPage(browser, baseURL);
  expect((await reader.request.get(`/api/share/${link.token}`)).status()).toBe(401);
  await reader.goto(link.url);
  await expect(reader).toHaveURL((u) => u.pathname === '/sign-in' && u.searchParams.get('next') === `/share/${link.token}`);

  const someone = newUser('share-reader');
  await signUpViaApi(reader.request, origin, someone);
  const signIn = reader.getByRole('button', { name: 'Sign in' });
  // A mistyped password first: the way back to the link survives Auth.js's error page.
  await reader.locator('#field-email').fill(someone.email);
  await reader.locator('#field-password').fill('not the password');
  await expect(signIn).toBeEnabled();
  await signIn.click();
  await expect(reader.getByText('That email and password do not match an account.')).toBeVisible();
  await expect(reader).toHaveURL((u) => u.searchParams.get('next') === `/share/${link.token}`);
  await reader.locator('#field-email').fill(someone.email);
  await reader.locator('#field-password').fill(someone.password);
  await expect(signIn).toBeEnabled();
  await signIn.click();
  await expect(reader).toHaveURL((u) => u.pathname === `/share/${link.token}`);
  await expect(reader.getByTestId('user-message')).toContainText(PLAIN_QUESTION);
  await expect(reader.getByRole('button', { name: 'Continue in your account' })).toBeVisible();
});

test('an expired link is a 404, and the owner sees it as expired', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const page = await ownerPage(browser, baseURL);
  const id = plain;
  // playwright.config.ts makes a "day" a few seconds long (SWITCHBOARD_TEST_SHARE_DAY_MS).
  const link = await createLink(page.request, origin, id, { expiresIn: '1d' });
  const reader = await signedOutPage(browser, baseURL);
  expect((await reader.request.get(`/api/share/${link.token}`)).status(), 'the link opens until it expires').toBe(200);
  await expect.poll(async () => (await reader.request.get(`/api/share/${link.token}`)).status(), { timeout: 20_000 }).toBe(404);
  expect((await reader.goto(link.url))?.status()).toBe(404);

  await page.goto('/shares');
  const row = page.getByTestId('share-link').filter({ hasText: 'Expired' });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Expired');
  await expect(row.getByRole('button', { name: 'Update to newest' })).toHaveCount(0);
});

test('a second person continues the conversation in their own account', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const page = await ownerPage(browser, baseURL);
  const id = plain;
  const link = await createLink(page.request, origin, id);

  const readerContext = await browser.newContext({ baseURL });
  const someone = newUser('share-fork');
  await signUpViaApi(readerContext.request, origin, someone);
  await signInViaApi(readerContext.request, someone.email, someone.password);
  const reader = await readerContext.newPage();
  await reader.goto(link.url);
  await reader.getByRole('button', { name: 'Continue in your account' }).click();
  const forked = await waitForConversation(reader);
  expect(forked).not.toBe(id);
  await expect(reader.getByText('Continued from a shared conversation')).toBeVisible();
  await expect(reader.getByTestId('user-message')).toContainText(PLAIN_QUESTION);
  await expect(reader.getByTestId('assistant-message')).toHaveCount(1);

  await sendWithEnter(reader, 'And which flowers?');
  await expect(reader.getByTestId('assistant-message')).toHaveCount(2);
  await expect(reader.getByTestId('assistant-message').last()).toContainText('And which flowers?');
  await waitForIdle(reader.request, forked);
  // The owner's conversation is untouched.
  const ownView = (await (await page.request.get(`/api/conversations/${id}`)).json()) as { messages: unknown[] };
  expect(ownView.messages).toHaveLength(2);
});

test('a turn waiting for the owner’s approval is neither shown to a reader nor decided by one', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const page = await ownerPage(browser, baseURL);
  const id = await conversationWith(page.request, origin, ['First, a plain question']);
  const grant = await page.request.put(`/api/conversations/${id}/grants`, {
    headers: jsonWrite(origin),
    data: { scope: 'tool:builtin-notes/create', enabled: true },
  });
  expect(grant.status(), await grant.text()).toBe(200);
  await page.goto(`/c/${id}`);
  await sendWithEnter(page, 'call notes__create {"title": "Pendingtitle", "body": "Pendingbody"}');
  await expect(page.getByTestId('approval-card')).toBeVisible();
  const ownView = (await (await page.request.get(`/api/conversations/${id}`)).json()) as {
    toolCalls: { id: string; status: string; argsHash: string }[];
  };
  const pending = ownView.toolCalls.find((c) => c.status === 'pending_approval')!;
  expect(pending).toBeTruthy();

  const link = await createLink(page.request, origin, id, { includeToolDetails: true });
  // Moving the snapshot to the newest message still stops at the last finished turn.
  const moved = await page.request.patch(`/api/shares/${link.id}`, { headers: jsonWrite(origin), data: { snapshot: 'latest' } });
  expect(moved.status(), await moved.text()).toBe(200);

  const readerContext = await browser.newContext({ baseURL });
  const someone = newUser('share-approver');
  await signUpViaApi(readerContext.request, origin, someone);
  await signInViaApi(readerContext.request, someone.email, someone.password);
  const reader = await readerContext.newPage();
  const body = await (await reader.request.get(`/api/share/${link.token}`)).text();
  for (const leak of ['notes__create', 'Pendingtitle', 'Pendingbody', pending.id, 'pending_approval']) expect(body).not.toContain(leak);

  await reader.goto(link.url);
  await expect(reader.getByTestId('user-message')).toHaveText(['First, a plain question']);
  await expect(reader.getByTestId('approval-card')).toHaveCount(0);
  await expect(reader.getByTestId('tool-call')).toHaveCount(0);
  await expect(reader.getByRole('button', { name: /Allow|Deny/ })).toHaveCount(0);
  expect(await reader.content()).not.toContain('Pendingbody');

  const decided = await reader.request.post(`/api/tool-calls/${pending.id}/decision`, {
    headers: jsonWrite(origin),
    data: { decision: 'allow_once', argsHash: pending.argsHash },
  });
  expect(decided.status()).toBe(404);
  await expect(page.getByTestId('approval-card')).toBeVisible();
  const still = (await (await page.request.get(`/api/conversations/${id}`)).json()) as { toolCalls: { id: string; status: string }[] };
  expect(still.toolCalls.find((c) => c.id === pending.id)?.status).toBe('pending_approval');
});

test('axe: the shared conversation and the Shared links page have no serious violations, light and dark', async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const page = await ownerPage(browser, baseURL);
  const id = withCall;
  const link = await createLink(page.request, origin, id);
  await createLink(page.request, origin, id, { includeToolDetails: true, audience: 'signed_in', expiresIn: '30d' });
  const reader = await signedOutPage(browser, baseURL);

  const serious = async (p: Page) =>
    (await new AxeBuilder({ page: p }).analyze()).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`);

  for (const scheme of ['light', 'dark'] as const) {
    await reader.emulateMedia({ colorScheme: scheme });
    await reader.goto(link.url);
    await expect(reader.getByTestId('tool-call')).toBeVisible();
    expect(await serious(reader), `shared page, ${scheme}`).toEqual([]);

    await page.emulateMedia({ colorScheme: scheme });
    await page.goto('/shares');
    await expect(page.getByTestId('share-link').first()).toBeVisible();
    expect(await serious(page), `Shared links page, ${scheme}`).toEqual([]);
  }
});
