import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';

import { OAUTH_FIXTURE_ORIGIN, OAUTH_FIXTURE_URL } from './fixtures/ports';
import { appOrigin, conversationWithTools, jsonWrite, sendWithEnter, signedInUser, waitForIdle } from './helpers';

// OAuth-protected MCP servers, in the browser, against test/fixtures/oauth-fixture.ts (started by
// playwright.config.ts): one loopback origin that is the authorization server (its authorize
// endpoint approves at once and redirects back with code, state and iss) and an MCP server behind
// bearer tokens. `whoami` needs mcp:read (what the server's challenge asks for); `admin_write`
// needs mcp:write, so calling it is a step-up: the call waits for the person to sign in again.

const SHOTS_DIR = path.resolve('screenshots');
const AUTHORIZE = `${OAUTH_FIXTURE_ORIGIN}/authorize`;

function card(page: Page, name: string): Locator {
  return page.getByRole('region', { name, exact: true });
}

function toolRow(container: Locator, name: string): Locator {
  return container.getByTestId('server-tool').filter({ has: container.page().getByText(name, { exact: true }) });
}

/** Every authorization request the browser makes to the fixture, as URLs (to check the scopes asked for). */
function recordAuthorizeRequests(page: Page): URL[] {
  const seen: URL[] = [];
  page.on('request', (req) => {
    if (req.url().startsWith(AUTHORIZE)) seen.push(new URL(req.url()));
  });
  return seen;
}

/** A screenshot at the page's viewport, named `<name>-<w>x<h>.png` (e2e/screenshots.spec.ts). */
async function shoot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const viewport = page.viewportSize()!;
  const file = path.join(SHOTS_DIR, `${name}-${viewport.width}x${viewport.height}.png`);
  fs.rmSync(file, { force: true });
  await page.screenshot({ path: file, animations: 'disabled' });
}

/** Adds the protected server over the API (201), as the page would. Returns its id. */
/** A server's id, by its name, from GET /api/servers. */
async function serverIdOf(page: Page, name: string): Promise<string> {
  const list = (await (await page.request.get('/api/servers')).json()) as { servers: { id: string; name: string }[] };
  const found = list.servers.find((s) => s.name === name);
  expect(found, `a server named ${name}`).toBeTruthy();
  return found!.id;
}

async function addViaApi(page: Page, origin: string, name: string, namespace: string): Promise<string> {
  const res = await page.request.post('/api/servers', {
    headers: jsonWrite(origin),
    data: { name, namespace, url: OAUTH_FIXTURE_URL },
  });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { server: { id: string } }).server.id;
}

/** Connect on the servers page: through the fixture's authorize endpoint and back, connected; tools enabled. */
async function connectAndEnable(page: Page, name: string, authorizations: URL[]): Promise<Locator> {
  const server = card(page, name);
  await expect(server.getByTestId('server-status')).toHaveText('Needs sign-in');
  const before = authorizations.length;
  await server.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/servers' && url.searchParams.get('oauth') === 'connected');
  expect(authorizations.length, 'the browser went through the authorization page').toBe(before + 1);
  // Its tools are not usable before they are enabled, and the notice says so.
  const notice = page.getByRole('status').filter({ hasText: `Signed in to ${name}.` });
  await expect(notice).toContainText('Review its tools below');
  await expect(server.getByTestId('server-status')).toHaveText('Connected');
  const review = server.getByTestId('review-panel');
  await expect(review).toBeVisible();
  await expect(toolRow(review, 'whoami')).toBeVisible();
  await expect(toolRow(review, 'admin_write')).toBeVisible();
  await server.getByRole('button', { name: 'Enable these tools' }).click();
  await expect(review).toHaveCount(0);
  await expect(server.getByRole('list', { name: `Tools of ${name}` }).getByTestId('server-tool')).toHaveCount(2);
  await expect(notice).toContainText('Its tools can be used now.');
  return server;
}

test('add a protected server through the page, Connect through the provider, use a tool, then Disconnect', async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'oauth-add');
  const authorizations = recordAuthorizeRequests(page);
  await page.goto('/servers');

  const server = card(page, 'Protected');
  await test.step('added through the Add dialog, it needs sign-in and offers Connect', async () => {
    await page.getByRole('button', { name: 'Add server' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a server' });
    await dialog.locator('#server-name').fill('Protected');
    await dialog.locator('#server-url').fill(OAUTH_FIXTURE_URL);
    await dialog.locator('#server-namespace').fill('protected');
    await dialog.getByRole('button', { name: 'Add server' }).click();
    await expect(dialog).toBeHidden({ timeout: 30_000 });
    await expect(server.getByTestId('server-status')).toHaveText('Needs sign-in');
    await expect(server.getByRole('button', { name: 'Connect', exact: true })).toBeVisible();
    await expect(server.getByRole('button', { name: 'Disconnect' })).toHaveCount(0);
  });

  await test.step('Connect goes through the authorization page and comes back connected; review and enable', async () => {
    await connectAndEnable(page, 'Protected', authorizations);
    const asked = authorizations.at(-1)!;
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(OAUTH_FIXTURE_URL);
    expect(asked.searchParams.get('scope')?.split(' ')).toContain('mcp:read');
    await expect(server.getByRole('button', { name: 'Connect', exact: true })).toHaveCount(0);
    await expect(server.getByRole('button', { name: 'Disconnect' })).toBeVisible();
    // Stored, not page state.
    await page.goto('/servers');
    await expect(server.getByTestId('server-status')).toHaveText('Connected');
    await expect(server.getByRole('list', { name: 'Tools of Protected' })).toBeVisible();
  });

  await test.step('the connected card in light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await server.scrollIntoViewIfNeeded();
      await shoot(page, `oauth-server-connected-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  await test.step('the model calls protected__whoami with the token and the result comes back', async () => {
    const id = await conversationWithTools(page, appOrigin(baseURL), [`server:${await serverIdOf(page, 'Protected')}/*`]);
    await sendWithEnter(page, 'call protected__whoami {}');
    const approval = page.getByTestId('approval-card');
    await expect(approval).toBeVisible();
    await approval.getByRole('button', { name: 'Allow once' }).click();
    await waitForIdle(page.request, id);
    await expect(page.getByTestId('tool-call').first()).toHaveAttribute('data-status', 'succeeded');
    await expect(page.getByTestId('assistant-message').last()).toContainText('whoami ran with scopes: mcp:read');
  });

  await test.step('Disconnect returns it to needs sign-in, with Connect again', async () => {
    await page.goto('/servers');
    await server.getByRole('button', { name: 'Disconnect' }).click();
    await expect(server.getByTestId('server-status')).toHaveText('Needs sign-in');
    await expect(server.getByRole('button', { name: 'Connect', exact: true })).toBeVisible();
    await expect(server.getByRole('button', { name: 'Disconnect' })).toHaveCount(0);
    await page.reload();
    await expect(server.getByTestId('server-status')).toHaveText('Needs sign-in');
  });
});

test('a call that needs a wider scope waits for sign-in mid-turn, survives a reload, and finishes after Connect', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'oauth-stepup');
  const authorizations = recordAuthorizeRequests(page);
  const serverId = await addViaApi(page, origin, 'Scoped', 'scoped');
  await page.goto('/servers');
  await connectAndEnable(page, 'Scoped', authorizations);

  const id = await conversationWithTools(page, origin, [`server:${serverId}/*`]);
  await sendWithEnter(page, 'call scoped__admin_write {}');
  const signIn = page.getByTestId('sign-in-card');

  await test.step('allowed, the call meets insufficient_scope: the sign-in card replaces it', async () => {
    const approval = page.getByTestId('approval-card');
    await expect(approval).toBeVisible();
    await approval.getByRole('button', { name: 'Allow once' }).click();
    await expect(signIn).toBeVisible({ timeout: 20_000 });
    await expect(signIn).toHaveAccessibleName('Scoped needs you to sign in');
    await expect(signIn.getByTestId('tool-call-status')).toHaveText('Waiting for you to sign in');
    await expect(signIn).toContainText('needs more access than you gave before');
    await expect(signIn).toContainText('mcp:write');
    await expect(signIn.getByRole('button', { name: 'Connect Scoped' })).toBeEnabled();
    const conversation = (await (await page.request.get(`/api/conversations/${id}`)).json()) as { activeRun: { status: string } | null };
    expect(conversation.activeRun?.status).toBe('awaiting_sign_in');
  });

  await test.step('a new message is refused while it waits', async () => {
    await expect(page.locator('#composer')).toHaveAttribute('placeholder', 'Waiting for the answer…');
    const res = await page.request.post(`/api/conversations/${id}/messages`, { headers: jsonWrite(origin), data: { text: 'me too' } });
    expect(res.status()).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('conflict:run');
  });

  await test.step('the page with the sign-in card passes axe and is shot in light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(signIn).toBeVisible();
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
      await shoot(page, `oauth-sign-in-card-${scheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  await test.step('still waiting after a reload', async () => {
    await page.reload();
    await expect(signIn).toBeVisible();
    await expect(signIn.getByTestId('tool-call-status')).toHaveText('Waiting for you to sign in');
  });

  await test.step('Connect asks the provider for the wider scope and returns to the conversation; the call runs', async () => {
    const before = authorizations.length;
    await signIn.getByRole('button', { name: 'Connect Scoped' }).click();
    await expect(page).toHaveURL((url) => url.pathname === `/c/${id}` && url.searchParams.get('oauth') === 'connected');
    expect(authorizations.length).toBe(before + 1);
    expect(authorizations.at(-1)!.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    await waitForIdle(page.request, id);
    await expect(signIn).toHaveCount(0);
    await expect(page.getByTestId('tool-call').first()).toHaveAttribute('data-status', 'succeeded');
    await expect(page.getByTestId('assistant-message').last()).toContainText(/admin_write ran with scopes: .*\bmcp:write\b/);
  });
});
