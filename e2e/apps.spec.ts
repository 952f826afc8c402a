import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type FrameLocator, type Locator, type Page } from '@playwright/test';

import { APPS_FIXTURE_URL, FIXTURE_API_KEY, FIXTURE_API_KEY_HEADER } from './fixtures/ports';
import { appOrigin, conversationWithTools, jsonWrite, sendWithEnter, signedInUser, waitForIdle } from './helpers';

// MCP Apps in Chromium: the App fixture (test/fixtures/apps-fixture.ts, built with the ext-apps
// server helpers and the official view-side `App`) served beside the e2e fixture. The demo model
// calls the App's tool; its view renders in the tool card through the official host bridge, in
// light and dark, with the tool's input and result, and resizes. A hostile view reaches none of
// the app's cookies, storage, DOM or top window, sends nothing and opens nothing by itself; a
// shared page shows a note and never the frame.

const SHOTS_DIR = path.resolve('screenshots');

async function shoot(page: Page, name: string) {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS_DIR, `apps-${name}.png`), fullPage: false });
}

/** Adds the App fixture (behind the fixture's key), enables every tool it lists, and opens a conversation where they are on. */
async function conversationWithApp(page: Page, origin: string): Promise<string> {
  const added = await page.request.post('/api/servers', {
    headers: jsonWrite(origin),
    data: { name: 'Apps', namespace: 'apps', url: APPS_FIXTURE_URL, headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY } },
  });
  expect(added.status(), await added.text()).toBe(201);
  const { server } = (await added.json()) as { server: { id: string; tools: { name: string; fingerprint: string }[] } };
  const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
  const enabled = await page.request.post(`/api/servers/${server.id}/enable`, { headers: jsonWrite(origin), data: { tools } });
  expect(enabled.status(), await enabled.text()).toBe(200);
  return conversationWithTools(page, origin, [`server:${server.id}/*`]);
}

/** Sends a call line, approves it if the page asks, and returns the finished call's card. */
async function call(page: Page, id: string, line: string): Promise<Locator> {
  const before = await page.getByTestId('tool-call').count();
  await sendWithEnter(page, line);
  const approval = page.getByTestId('approval-card');
  await expect(approval.or(page.getByTestId('tool-call').nth(before))).toBeVisible();
  if (await approval.isVisible()) await approval.getByRole('button', { name: 'Allow once' }).click();
  await waitForIdle(page.request, id);
  const card = page.getByTestId('tool-call').nth(before);
  await expect(card).toHaveAttribute('data-status', 'succeeded');
  return card;
}

function viewOf(card: Locator): FrameLocator {
  return card.getByTestId('app-view-frame').contentFrame();
}

test('an App’s view renders in its card, in light and dark, with the input and result, and resizes; a share shows only a note', async ({
  page,
  baseURL,
}) => {
  // Many steps (two themes, a resize, a share): on a loaded machine 60 s is not enough.
  test.setTimeout(150_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'apps-view');
  await page.emulateMedia({ colorScheme: 'light' });
  const id = await conversationWithApp(page, origin);

  const card = await call(page, id, 'call apps__show_greeting {"name": "Ada"}');
  const view = viewOf(card);

  await test.step('the view gets the input and the result through the bridge, in the page’s theme', async () => {
    await expect(view.locator('#input')).toHaveText('{"name":"Ada"}');
    await expect(view.locator('#result')).toHaveText('Hello, Ada!');
    await expect(view.locator('#theme')).toHaveText('light');
    await expect(view.locator('#mode')).toHaveText('inline');
    // The text result is still on the card, for whoever has no view.
    await card.locator('summary').first().click();
    await expect(card).toContainText('Hello, Ada!');
    await shoot(page, 'light');
  });

  await test.step('the frame follows the view’s size, up to a maximum', async () => {
    const frame = card.getByTestId('app-view-frame');
    const before = (await frame.boundingBox())!.height;
    expect(before).toBeLessThan(400);
    await view.getByRole('button', { name: 'Grow' }).click();
    await expect.poll(async () => (await frame.boundingBox())!.height).toBeGreaterThan(before + 300);
    expect((await frame.boundingBox())!.height).toBeLessThanOrEqual(640);
  });

  await test.step('the view goes fullscreen at its request, and back', async () => {
    const frame = card.getByTestId('app-view-frame');
    await view.getByRole('button', { name: 'Fullscreen' }).click();
    await expect(view.locator('#mode')).toHaveText('fullscreen');
    await expect(card.getByTestId('app-view')).toHaveAttribute('data-display-mode', 'fullscreen');
    const viewport = page.viewportSize()!;
    await expect.poll(async () => (await frame.boundingBox())!.width).toBe(viewport.width);
    expect((await frame.boundingBox())!.height).toBeGreaterThan(viewport.height - 100);
    await shoot(page, 'fullscreen');
    await view.getByRole('button', { name: 'Back inline' }).click();
    await expect(view.locator('#mode')).toHaveText('inline');
    // The person can always come back too, without the view.
    await view.getByRole('button', { name: 'Fullscreen' }).click();
    await expect(view.locator('#mode')).toHaveText('fullscreen');
    await page.getByRole('button', { name: 'Back to the conversation' }).click();
    await expect(view.locator('#mode')).toHaveText('inline');
    expect((await frame.boundingBox())!.height).toBeLessThanOrEqual(640);
  });

  await test.step('a click in the view asks for a tool that needs approval: deny runs nothing, allow runs it once', async () => {
    await view.getByRole('button', { name: 'Count a click' }).click();
    const ask = card.getByTestId('approval-card');
    await expect(ask.getByTestId('asked-by-view')).toHaveText('Asked by the interactive view, not the model.');
    await expect(ask).toContainText('The interactive view asks to run count_clicks on Apps.');
    await shoot(page, 'view-asks');
    await ask.getByRole('button', { name: 'Deny…' }).click();
    await ask.getByRole('button', { name: 'Deny', exact: true }).click();
    await expect(view.locator('#clicks')).toHaveText(/^refused: The person denied this call/);
    await expect(card.getByTestId('app-view-call-outcome')).toHaveText("The view's call to count_clicks was denied; it did not run.");

    await view.getByRole('button', { name: 'Count a click' }).click();
    await card.getByTestId('approval-card').getByRole('button', { name: 'Allow once' }).click();
    // The fixture counts the clicks it ran (per process: a retry counts on); the log shows one run.
    await expect(view.locator('#clicks')).toHaveText(/^Clicked \d+ times\.$/);
    await expect(card.getByTestId('approval-card')).toHaveCount(0);
    const log = (await (await page.request.get(`/api/activity?conversation=${id}&tool=count_clicks`)).json()) as {
      entries: { content: { outcome: string; askedBy?: { by: string } } }[];
    };
    expect(log.entries.map((e) => [e.content.outcome, e.content.askedBy?.by])).toEqual([
      ['succeeded', 'view'],
      ['denied', 'view'],
    ]);
    // The model's history holds none of it.
    const conversation = (await (await page.request.get(`/api/conversations/${id}`)).json()) as { messages: unknown[] };
    expect(JSON.stringify(conversation.messages)).not.toContain('Clicked');
  });

  await test.step('the view’s message lands in the composer unsent; its context for the model is shown and kept', async () => {
    await view.getByRole('button', { name: 'Suggest a message' }).click();
    await expect(page.locator('#composer')).toHaveValue('Please greet Grace too.');
    await expect(view.locator('#said')).toHaveText('message: {}');
    await view.getByRole('button', { name: 'Share state' }).click();
    const shared = card.getByTestId('app-view-context');
    await expect(shared).toContainText('The person is looking at the greeting for {"name":"Ada"}.');
    await expect(shared).toContainText('"clicks": "Clicked');
    await shared.scrollIntoViewIfNeeded();
    await shoot(page, 'view-context');
    // Kept with the call: the page's data has it after a reload; nothing was sent.
    const conversation = (await (await page.request.get(`/api/conversations/${id}`)).json()) as {
      messages: unknown[];
      toolCalls: { viewContext: { text: string } | null }[];
    };
    expect(conversation.toolCalls[0]!.viewContext?.text).toBe('The person is looking at the greeting for {"name":"Ada"}.');
    expect(JSON.stringify(conversation.messages)).not.toContain('Please greet Grace too.');
    await page.locator('#composer').fill('');
  });

  await test.step('in dark, the view is told the dark theme', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    const again = page.getByTestId('tool-call').first();
    await expect(viewOf(again).locator('#theme')).toHaveText('dark');
    await expect(viewOf(again).locator('#result')).toHaveText('Hello, Ada!');
    await shoot(page, 'dark');
  });

  await test.step('a shared page shows the text result and a note, never the frame', async () => {
    const made = await page.request.post(`/api/conversations/${id}/shares`, {
      headers: jsonWrite(origin),
      data: { includeToolDetails: true, audience: 'anyone', expiresIn: '7d' },
    });
    expect(made.status(), await made.text()).toBe(201);
    const { url } = (await made.json()) as { url: string };
    const reader = await (await page.context().browser()!.newContext({ baseURL })).newPage();
    await reader.goto(new URL(url).pathname);
    const shared = reader.getByTestId('tool-call').first();
    await expect(shared.getByTestId('app-view-note')).toHaveText('Interactive view — open in Switchboard');
    await expect(reader.locator('iframe')).toHaveCount(0);
    await shared.locator('summary').first().click();
    await expect(shared).toContainText('Hello, Ada!');
    await shoot(reader, 'share');
    // Shared without tool details: still the note, still no frame.
    const hidden = await page.request.post(`/api/conversations/${id}/shares`, {
      headers: jsonWrite(origin),
      data: { includeToolDetails: false, audience: 'anyone', expiresIn: '7d' },
    });
    expect(hidden.status(), await hidden.text()).toBe(201);
    await reader.goto(new URL(((await hidden.json()) as { url: string }).url).pathname);
    await expect(reader.getByTestId('tool-details-hidden')).toBeVisible();
    await expect(reader.getByTestId('app-view-note')).toBeVisible();
    await expect(reader.locator('iframe')).toHaveCount(0);
    await reader.context().close();
  });
});

test('a hostile view reaches no cookie, storage, DOM or top window of the app, and sends or opens nothing by itself', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'apps-hostile');
  const id = await conversationWithApp(page, origin);
  // Something of the app's own for the view to try to read.
  await page.evaluate(() => {
    document.cookie = 'app_probe=visible-to-the-app; Path=/';
    localStorage.setItem('app_probe', 'visible-to-the-app');
  });
  const pageUrl = page.url();

  const card = await call(page, id, 'call apps__hostile_view {}');
  const log = viewOf(card).getByTestId('hostile-log');
  await expect(log).toContainText('done');
  const text = await log.textContent();
  // An opaque origin: reading the cookie, storage or the parent's DOM throws.
  expect(text).toContain('cookie: threw SecurityError');
  expect(text).toContain('localStorage: threw SecurityError');
  expect(text).toContain('parentDocument: threw SecurityError');
  expect(text).not.toContain('visible-to-the-app');
  // No popups (sandbox without allow-popups) and no top navigation.
  expect(text).toContain('popup: null');
  expect(text).toContain('topLocation: ');
  expect(page.url()).toBe(pageUrl);
  expect(page.context().pages()).toHaveLength(1);
  // ui/message only fills the composer: nothing was sent for the person.
  expect(text).toMatch(/message: \{\}/);
  await expect(card.getByTestId('app-view-notice')).toContainText('The view put a message in your composer.');
  await expect(page.locator('#composer')).toHaveValue('Sent by the view itself');
  await waitForIdle(page.request, id);
  const conversation = (await (await page.request.get(`/api/conversations/${id}`)).json()) as { messages: { content: unknown }[] };
  expect(JSON.stringify(conversation.messages)).not.toContain('Sent by the view itself');
  // ui/open-link opens nothing by itself: the card asks, with a button.
  expect(text).toMatch(/openLink: \{"isError":true\}/);
  await expect(card.getByTestId('app-view-notice')).toContainText('The view asks to open https://example.invalid/');
  await expect(card.getByRole('button', { name: 'Open link' })).toBeVisible();
  expect(page.context().pages()).toHaveLength(1);
  await shoot(page, 'hostile');
});

test('a view’s call decided in one tab leaves the approval card of another tab open on it, without a reload', async ({ page, baseURL }) => {
  test.setTimeout(60_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'apps-tabs');
  const id = await conversationWithApp(page, origin);
  const card = await call(page, id, 'call apps__show_greeting {"name": "Ada"}');
  await viewOf(card).getByRole('button', { name: 'Count a click' }).click();
  await expect(card.getByTestId('approval-card')).toBeVisible();

  // The same person in a second tab: the waiting call is on the view's card there too.
  const other = await page.context().newPage();
  await other.goto(`/c/${id}`);
  const otherCard = other.getByTestId('tool-call').first();
  await expect(otherCard.getByTestId('approval-card')).toContainText('The interactive view asks to run count_clicks on Apps.');

  await card.getByTestId('approval-card').getByRole('button', { name: 'Allow once' }).click();
  await expect(viewOf(card).locator('#clicks')).toHaveText(/^Clicked \d+ times\.$/);
  // The other tab hears the decision and the end from the conversation's events.
  await expect(otherCard.getByTestId('approval-card')).toHaveCount(0);
  await expect(otherCard.getByTestId('app-view-call-outcome')).toHaveText("The view's call to count_clicks ran.");
  await shoot(other, 'other-tab');
  await other.close();
});

test('with “Show interactive views” switched off on the servers page, the card shows the text result and a note, no frame', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'apps-off');
  const id = await conversationWithApp(page, origin);
  const card = await call(page, id, 'call apps__show_greeting {"name": "Ada"}');
  await expect(viewOf(card).locator('#result')).toHaveText('Hello, Ada!');

  await page.goto('/servers');
  const server = page.getByRole('region', { name: 'Apps', exact: true });
  // What the person reviews of the App's tools includes their views.
  await expect(server.getByTestId('server-tool-view').first()).toContainText('Interactive view ui://fixture/');
  await server.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit “Apps”' });
  const views = dialog.getByRole('switch', { name: 'Show interactive views' });
  await expect(views).toHaveAttribute('aria-checked', 'true');
  await views.click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();

  await page.goto(`/c/${id}`);
  const off = page.getByTestId('tool-call').first();
  await expect(off.getByTestId('app-view-note')).toHaveText('Interactive view — switched off for this server (servers page)');
  await expect(page.locator('iframe')).toHaveCount(0);
  await off.locator('summary').first().click();
  await expect(off).toContainText('Hello, Ada!');
  await shoot(page, 'views-off');
});
