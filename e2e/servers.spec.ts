import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';

import { EVERYTHING_HTTP_URL, EVERYTHING_SSE_URL, FIXTURE_API_KEY, FIXTURE_API_KEY_HEADER, FIXTURE_URL } from './fixtures/ports';
import { appOrigin, jsonWrite, sendWithEnter, signedInUser, waitForIdle } from './helpers';

// The servers page against real MCP servers on loopback (started by playwright.config.ts): our
// own fixture behind an API key, and the published server-everything over both HTTP transports.

const SHOTS_DIR = path.resolve('screenshots');

function card(page: Page, name: string): Locator {
  return page.getByRole('region', { name, exact: true });
}

/** One tool's row (name, badges, description) in a card or a review. */
function toolRow(container: Locator, name: string): Locator {
  return container.getByTestId('server-tool').filter({ has: container.page().getByText(name, { exact: true }) });
}

/** Opens the Add dialog, fills it and submits; returns the dialog. */
async function addThroughPage(
  page: Page,
  fields: { name: string; url: string; namespace?: string; headers?: [string, string][] },
): Promise<Locator> {
  await page.getByRole('button', { name: 'Add server' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add a server' });
  await expect(dialog).toBeVisible();
  await dialog.locator('#server-name').fill(fields.name);
  await dialog.locator('#server-url').fill(fields.url);
  if (fields.namespace) await dialog.locator('#server-namespace').fill(fields.namespace);
  for (const [i, [name, value]] of (fields.headers ?? []).entries()) {
    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByLabel(`Header ${i + 1} name`).fill(name);
    const valueInput = dialog.getByLabel(`Header ${i + 1} value`);
    await expect(valueInput).toHaveAttribute('type', 'password');
    await valueInput.fill(value);
  }
  await dialog.getByRole('button', { name: 'Add server' }).click();
  return dialog;
}

/** A server added over the API, as the page would (for the views that are not about adding). */
async function addViaApi(page: Page, origin: string, body: Record<string, unknown>): Promise<void> {
  const res = await page.request.post('/api/servers', { headers: jsonWrite(origin), data: body });
  expect(res.status(), await res.text()).toBe(201);
}

test('add the fixture server with its API key, review and enable its tools, then use one in a conversation', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'servers-add');
  await page.goto('/');
  await page.getByRole('complementary', { name: 'Conversations' }).getByRole('link', { name: 'Servers', exact: true }).click();
  await expect(page).toHaveURL(/\/servers$/);

  await test.step('empty state explains and offers Add and Import', async () => {
    await expect(page.getByRole('heading', { name: 'No servers of your own yet' })).toBeVisible();
    await expect(page.getByText('An MCP server is a service that offers tools')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Import' })).toBeVisible();
    // The built-in servers are listed, read-only.
    await expect(page.getByRole('heading', { name: 'Built in' })).toBeVisible();
    await expect(card(page, 'Notes')).toBeVisible();
    await expect(card(page, 'Notes').getByRole('button', { name: 'Remove' })).toHaveCount(0);
  });

  await test.step('a field error lands next to its field', async () => {
    const dialog = await addThroughPage(page, { name: 'Broken', url: 'ftp://example.test/mcp' });
    await expect(dialog.locator('#server-url')).toHaveAttribute('aria-invalid', 'true');
    await expect(dialog.locator('#server-url-error')).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  });

  const server = card(page, 'Fixture');
  await test.step('add with the API-key header; the review lists what it will be able to do', async () => {
    const dialog = await addThroughPage(page, {
      name: 'Fixture',
      url: FIXTURE_URL,
      namespace: 'fixture',
      headers: [[FIXTURE_API_KEY_HEADER, FIXTURE_API_KEY]],
    });
    await expect(dialog).toBeHidden();
    await expect(server.getByTestId('server-status')).toHaveText('Connected');
    await expect(server).toContainText(FIXTURE_API_KEY_HEADER);
    await expect(server).toContainText('Streamable HTTP');
    await expect(page.locator('body')).not.toContainText(FIXTURE_API_KEY);

    const review = server.getByTestId('review-panel');
    await expect(review).toBeVisible();
    await expect(review.getByRole('heading', { name: 'Review what this server will be able to do' })).toBeFocused();
    await expect(review).toContainText('1 tool says it can delete or overwrite.');
    const tool = (name: string) => toolRow(review, name);
    await expect(review.getByTestId('server-tool')).toHaveCount(3);
    await expect(tool('echo')).toContainText('read-only');
    await expect(tool('echo')).toContainText('idempotent');
    await expect(tool('add')).toContainText('not annotated');
    await expect(tool('delete_everything')).toContainText('destructive');
  });

  await test.step('Enable these tools; the card then lists them with their annotations', async () => {
    await server.getByRole('button', { name: 'Enable these tools' }).click();
    await expect(server.getByTestId('review-panel')).toHaveCount(0);
    const tools = server.getByRole('list', { name: 'Tools of Fixture' });
    await expect(tools.getByTestId('server-tool')).toHaveCount(3);
    await expect(toolRow(tools, 'delete_everything')).toContainText('destructive');
    await expect(toolRow(tools, 'add')).toContainText('not annotated');
    // Still enabled after a reload (stored, not page state).
    await page.reload();
    await expect(card(page, 'Fixture').getByRole('list', { name: 'Tools of Fixture' })).toBeVisible();
    await expect(card(page, 'Fixture').getByTestId('review-panel')).toHaveCount(0);
  });

  await test.step('Edit: a new URL warns that stored secrets are dropped', async () => {
    await server.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit “Fixture”' });
    await expect(dialog.getByRole('textbox', { name: 'URL' })).toHaveValue(FIXTURE_URL);
    await expect(dialog).toContainText(`Stored: ${FIXTURE_API_KEY_HEADER}`);
    await expect(dialog.getByText('Changing the URL drops')).toHaveCount(0);
    await dialog.getByRole('textbox', { name: 'URL' }).fill(FIXTURE_URL.replace('/mcp', '/other'));
    await expect(dialog.getByText('Changing the URL drops')).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(server.getByRole('button', { name: 'Edit' })).toBeFocused();
  });

  await test.step('Edit: trusting its content is a switch of its own, beside its annotations, and says what it changes', async () => {
    await expect(server).toContainText('content untrusted');
    await server.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit “Fixture”' });
    const annotations = dialog.getByRole('switch', { name: 'Trust its annotations' });
    const content = dialog.getByRole('switch', { name: 'Trust its content' });
    await expect(annotations).toHaveAttribute('aria-checked', 'false');
    await expect(content).toHaveAttribute('aria-checked', 'false');
    await expect(dialog.getByText(/asks you before any tool that reaches outside systems/)).toBeVisible();
    await content.click();
    await expect(content).toHaveAttribute('aria-checked', 'true');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(server).toContainText('content trusted');
    await page.reload();
    await expect(card(page, 'Fixture')).toContainText('content trusted');
  });

  await test.step('Test connection and Refresh tools keep it connected', async () => {
    await server.getByRole('button', { name: 'Test connection' }).click();
    await expect(server.getByTestId('server-status')).toHaveText('Connected');
    await server.getByRole('button', { name: 'Refresh tools' }).click();
    await expect(server.getByRole('button', { name: 'Refresh tools' })).toBeEnabled();
    await expect(server.getByTestId('review-panel')).toHaveCount(0);
  });

  await test.step('switched on in a conversation’s Tools panel, the model calls fixture__echo and the result comes back', async () => {
    const created = await page.request.post('/api/conversations', { headers: jsonWrite(appOrigin(baseURL)), data: {} });
    const { id } = (await created.json()) as { id: string };
    await page.goto(`/c/${id}`);
    // Enabled on the servers page is not yet on in a conversation: the person switches it on there.
    await page.getByRole('button', { name: /^Tools/ }).click();
    const panel = page.getByRole('dialog', { name: 'Tools' });
    const echo = panel.getByRole('region', { name: 'Fixture', exact: true }).locator('[data-testid="panel-tool"][data-tool="echo"]');
    await echo.getByRole('switch').click();
    await expect(echo.getByRole('switch')).toHaveAttribute('aria-checked', 'true');
    await panel.getByRole('button', { name: 'Close' }).click();
    await sendWithEnter(page, 'call fixture__echo {"text": "hi"}');
    // An untrusted server's tool asks first.
    const approval = page.getByTestId('approval-card');
    await expect(approval).toBeVisible();
    await approval.getByRole('button', { name: 'Allow once' }).click();
    await waitForIdle(page.request, id);
    await expect(page.getByTestId('tool-call').first()).toHaveAttribute('data-status', 'succeeded');
    await expect(page.getByTestId('assistant-message').last()).toContainText('Echo from the fixture: hi');
  });

  await test.step('Remove asks, then the server is gone', async () => {
    await page.goto('/servers');
    await card(page, 'Fixture').getByRole('button', { name: 'Remove' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove “Fixture”?' });
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await expect(card(page, 'Fixture')).toHaveCount(0);
    await expect(page.getByRole('heading', { name: 'No servers of your own yet' })).toBeVisible();
  });
});

test('import a config with two remote servers and one stdio server: 2 added, 1 not usable', async ({ page, baseURL }) => {
  await signedInUser(page.context(), appOrigin(baseURL), 'servers-import');
  // The OAuth callback's failure comes back to this page as a reason code, said in the page's own words;
  // text an attacker put in the link is not shown.
  await page.goto('/servers?oauth=failed&reason=denied&message=Call%20evil.example%20to%20fix%20your%20account.');
  await expect(page.getByRole('status').filter({ hasText: 'access was not granted' })).toBeVisible();
  await expect(page.getByText('evil.example')).toHaveCount(0);
  await page.goto('/servers');
  const config = {
    mcpServers: {
      'everything-http': { url: EVERYTHING_HTTP_URL },
      'everything-sse': { type: 'sse', url: EVERYTHING_SSE_URL },
      filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${env:HOME}'] },
    },
  };
  await page.getByRole('button', { name: 'Import' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Import servers' });
  // From a file, as a person would pick their claude_desktop_config.json.
  await dialog.getByTestId('import-file').setInputFiles({
    name: 'claude_desktop_config.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(config, null, 2)),
  });
  await expect(dialog.getByLabel('Configuration (JSON)')).toHaveValue(/everything-sse/);
  await dialog.getByRole('button', { name: 'Import' }).click();

  const summary = dialog.getByTestId('import-summary');
  await expect(summary).toContainText('Added: 2');
  await expect(summary).toContainText('Not usable here: 1');
  await expect(summary.getByRole('region', { name: 'Not usable' })).toContainText('filesystem');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('server-card').filter({ hasText: EVERYTHING_HTTP_URL })).toHaveCount(1);
  await expect(page.getByTestId('server-card').filter({ hasText: EVERYTHING_SSE_URL })).toHaveCount(1);
});

test('server-everything over Streamable HTTP and over the old HTTP+SSE transport, both added through the page', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  await signedInUser(page.context(), appOrigin(baseURL), 'servers-everything');
  await page.goto('/servers');
  for (const [name, url, transport] of [
    ['Everything HTTP', EVERYTHING_HTTP_URL, 'Streamable HTTP'],
    ['Everything SSE', EVERYTHING_SSE_URL, 'HTTP+SSE (legacy)'],
  ] as const) {
    await test.step(name, async () => {
      const dialog = await addThroughPage(page, { name, url });
      await expect(dialog).toBeHidden({ timeout: 30_000 });
      const server = card(page, name);
      await expect(server.getByTestId('server-status')).toHaveText('Connected');
      await expect(server).toContainText(transport);
      await expect(server).toContainText('2025-');
      const review = server.getByTestId('review-panel');
      await expect(toolRow(review, 'echo')).toContainText('read-only');
      await server.getByRole('button', { name: 'Enable these tools' }).click();
      await expect(review).toHaveCount(0);
    });
  }
});

test('the servers page passes axe in light and dark, and is shot at 1280 and 390', async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const origin = appOrigin(baseURL);
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  try {
    const page = await context.newPage();
    await signedInUser(context, origin, 'servers-axe');

    await page.goto('/servers');
    await expect(page.getByRole('heading', { name: 'No servers of your own yet' })).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS_DIR, 'servers-empty-1280x800.png'), animations: 'disabled' });

    // One server waiting for review, one enabled; both through the API.
    await addViaApi(page, origin, {
      name: 'Fixture',
      namespace: 'fixture',
      url: FIXTURE_URL,
      headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY },
    });
    await addViaApi(page, origin, { name: 'Everything', url: EVERYTHING_HTTP_URL });
    await page.goto('/servers');
    await expect(card(page, 'Fixture').getByTestId('review-panel')).toBeVisible();
    await card(page, 'Everything').getByRole('button', { name: 'Enable these tools' }).click();
    await expect(card(page, 'Everything').getByTestId('review-panel')).toHaveCount(0);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('/servers');
      await expect(card(page, 'Fixture')).toBeVisible();
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        await page.setViewportSize(viewport);
        await page.screenshot({
          path: path.join(SHOTS_DIR, `servers-${scheme}-${viewport.width}x${viewport.height}.png`),
          animations: 'disabled',
        });
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Add server' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add a server' });
    await dialog.getByRole('button', { name: 'Add header' }).click();
    const { violations } = await new AxeBuilder({ page }).include('dialog').analyze();
    expect(violations.map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: path.join(SHOTS_DIR, `servers-add-${viewport.width}x${viewport.height}.png`), animations: 'disabled' });
    }
  } finally {
    await context.close();
  }
});
