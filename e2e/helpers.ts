import { randomBytes } from 'node:crypto';
import { expect, type APIRequestContext, type APIResponse, type BrowserContext, type Page } from '@playwright/test';

import { titleFrom as demoTitleFrom } from '../lib/model/demo/reply';
import { cleanTitle } from '../lib/model/titles';

export const PASSWORD = 'correct horse battery staple';

/** The closing line of every demo answer when no tools are offered (the app offers none). */
// The demo ends a plain answer by listing the tools it was offered; the built-in sandbox comes last.
export const DEMO_CLOSING = 'sandbox__run_js';
export const DEMO_OPENING = 'This is the offline demo model';
export const DEMO_LABEL = 'Demo model (offline)';

export interface TestUser {
  email: string;
  password: string;
  name: string;
}

/** A user nobody else in this run has: `<tag>-<random>@example.test`. */
export function newUser(tag: string): TestUser {
  const id = randomBytes(5).toString('hex');
  return { email: `${tag}-${id}@example.test`, password: PASSWORD, name: `${tag} ${id}` };
}

/** `count` distinct, markdown-free words: a long message gives a long, slowly streamed answer. */
export function words(count: number, prefix = 'word'): string {
  const tag = randomBytes(3).toString('hex');
  return Array.from({ length: count }, (_, i) => `${prefix}${tag}x${i + 1}`).join(' ');
}

/** How often `needle` occurs in `haystack` (non-overlapping). */
export function occurrences(haystack: string, needle: string): number {
  if (!needle) throw new Error('occurrences: empty needle');
  return haystack.split(needle).length - 1;
}

/** The app's origin as the browser sends it in `Origin` (the base URL of the config). */
export function appOrigin(baseURL: string | undefined): string {
  if (!baseURL) throw new Error('baseURL is not configured');
  return new URL(baseURL).origin;
}

/** Headers of a same-origin JSON write: what the browser sends from our own pages. */
export function jsonWrite(origin: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'Content-Type': 'application/json', Origin: origin, ...extra };
}

// Each API sign-up claims its own X-Forwarded-For. The e2e server trusts no proxy (TRUSTED_PROXIES
// unset), so the app ignores it; it only matters if a run sets TRUSTED_PROXIES.
let clientCounter = 0;
export function fakeClientAddress(): string {
  clientCounter += 1;
  return `10.${(process.pid >> 8) & 255}.${process.pid & 255}.${clientCounter % 250}`;
}

/** POST /api/account as the sign-up page does; a string body is sent as is. Returns the raw response. */
export function postAccount(
  request: APIRequestContext,
  origin: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<APIResponse> {
  return request.post('/api/account', {
    headers: jsonWrite(origin, { 'X-Forwarded-For': fakeClientAddress(), ...headers }),
    // A Buffer goes out byte for byte (Playwright would JSON-encode a string that is not valid JSON).
    data: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  });
}

/** Creates an account over the API (201 expected). */
export async function signUpViaApi(request: APIRequestContext, origin: string, user: TestUser): Promise<{ id: string; email: string }> {
  const res = await postAccount(request, origin, { email: user.email, password: user.password, name: user.name });
  expect(res.status(), await res.text()).toBe(201);
  return res.json();
}

/**
 * Signs in through Auth.js the way the sign-in form does: a CSRF token (double-submit cookie),
 * then the credentials form. Returns the `Location` it redirects to. With `context.request` the
 * session cookie lands in the browser context too.
 */
export async function signInViaApi(request: APIRequestContext, email: string, password: string): Promise<string> {
  const csrf = await request.get('/api/auth/csrf');
  expect(csrf.status()).toBe(200);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  expect(csrfToken).toBeTruthy();
  const res = await request.post('/api/auth/callback/credentials', {
    form: { csrfToken, email, password, callbackUrl: '/' },
    maxRedirects: 0,
  });
  expect(res.status(), 'Auth.js answers a form sign-in with a redirect').toBe(302);
  return res.headers()['location'] ?? '';
}

/** Creates a user over the API and signs the browser context in; the session is checked. */
export async function signedInUser(context: BrowserContext, origin: string, tag: string): Promise<TestUser> {
  const user = newUser(tag);
  await signUpViaApi(context.request, origin, user);
  const location = await signInViaApi(context.request, user.email, user.password);
  expect(new URL(location, origin).pathname).toBe('/');
  const me = await context.request.get('/api/conversations');
  expect(me.status()).toBe(200);
  return user;
}

/** The sign-up page: fills the form and waits until the app lands on `/`, signed in. */
export async function signUpViaUi(page: Page, user: TestUser): Promise<void> {
  await page.goto('/sign-up');
  await page.locator('#field-name').fill(user.name);
  await page.locator('#field-email').fill(user.email);
  await page.locator('#field-password').fill(user.password);
  // Known app race (reported): "Create account" is enabled before Auth.js's CSRF token has
  // loaded, and submitting then lands on /sign-in?error=MissingCSRF. Wait for the token as a
  // person's typing speed would.
  await expect(page.locator('input[name="csrfToken"]').first()).not.toHaveValue('');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.locator('#composer')).toBeVisible();
}

/** The sign-in page: fills the form and submits it (the caller checks where it lands). */
export async function submitSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await page.locator('#field-email').fill(email);
  await page.locator('#field-password').fill(password);
  // Disabled until the CSRF token has loaded.
  const button = page.getByRole('button', { name: 'Sign in' });
  await expect(button).toBeEnabled();
  await button.click();
}

export async function signInViaUi(page: Page, email: string, password: string): Promise<void> {
  await submitSignIn(page, email, password);
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.locator('#composer')).toBeVisible();
}

/** The sidebar's Sign out button (enabled once its CSRF token is in); lands on /sign-in. */
export async function signOutViaUi(page: Page): Promise<void> {
  const button = page.getByRole('complementary', { name: 'Conversations' }).getByRole('button', { name: 'Sign out' });
  await expect(button).toBeEnabled();
  await button.click();
  await expect(page).toHaveURL((url) => url.pathname === '/sign-in');
}

/** Sends a message from the composer with Enter. */
export async function sendWithEnter(page: Page, text: string): Promise<void> {
  const composer = page.locator('#composer');
  await expect(composer).toBeEnabled();
  await composer.fill(text);
  await composer.press('Enter');
}

export const CONVERSATION_PATH = /^\/c\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Waits for `/c/<uuid>` and returns the id. */
export async function waitForConversation(page: Page): Promise<string> {
  await expect(page).toHaveURL((url) => CONVERSATION_PATH.test(url.pathname));
  return CONVERSATION_PATH.exec(new URL(page.url()).pathname)![1]!;
}

/** The title a conversation ends up with: the demo model's suggestion for the first message (lib/agent/title.ts). */
export function expectedTitle(text: string): string {
  return cleanTitle(demoTitleFrom(text)) ?? 'New conversation';
}

/**
 * A new conversation with these tools switched on for this session (`PUT …/grants`, as the Tools
 * panel does: everything but the first-party read-only tools is off until granted), opened in the
 * page. Scopes: `tool:<serverId>/<tool>` or `server:<serverId>/*` (built-ins: `builtin-notes`…).
 */
export async function conversationWithTools(page: Page, origin: string, scopes: string[]): Promise<string> {
  const res = await page.request.post('/api/conversations', { headers: jsonWrite(origin), data: {} });
  expect(res.status(), await res.text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  for (const scope of scopes) {
    const put = await page.request.put(`/api/conversations/${id}/grants`, { headers: jsonWrite(origin), data: { scope, enabled: true } });
    expect(put.status(), await put.text()).toBe(200);
  }
  await page.goto(`/c/${id}`);
  await expect(page.locator('#composer')).toBeEnabled();
  return id;
}

/** Waits until the conversation has no active run (over the API, with the page's cookies). */
export async function waitForIdle(request: APIRequestContext, conversationId: string, timeout = 30_000): Promise<void> {
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/conversations/${conversationId}`);
        expect(res.status()).toBe(200);
        return ((await res.json()) as { activeRun: unknown }).activeRun;
      },
      { timeout, message: `conversation ${conversationId} still has an active run` },
    )
    .toBeNull();
}

/**
 * Records every distinct length of the in-progress answer's text, from a MutationObserver
 * installed before any page script runs (it survives client-side navigation; a reload
 * installs a new one). Read with `streamLengths(page)`.
 */
export async function recordStreamLengths(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __streamLengths: number[] };
    w.__streamLengths = [];
    const record = () => {
      const el = document.querySelector('[data-testid="streaming-message"]');
      const length = el?.textContent?.length ?? 0;
      const seen = w.__streamLengths;
      if (length > 0 && seen[seen.length - 1] !== length) seen.push(length);
    };
    new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

export async function streamLengths(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as { __streamLengths?: number[] }).__streamLengths ?? []);
}
