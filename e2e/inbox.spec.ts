import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect, test } from '@playwright/test';

import { appOrigin, jsonWrite, signedInUser } from './helpers';

/**
 * The "Other clients" inbox (issue 25): an MCP client's call that needs approval appears in an open
 * tab without a reload (the sidebar's count, then the card), Allow once runs it once and the client
 * gets its result, and the Activity log names the client.
 */
test('a client call waits in the inbox of an open tab, runs once when allowed, and is audited under the client', async ({
  page,
  baseURL,
}, testInfo) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'inbox');
  const made = await page.request.post('/api/account/tokens', {
    headers: jsonWrite(origin),
    data: { name: 'Release bot', tools: ['notes__create'] },
  });
  expect(made.status()).toBe(201);
  const { token } = (await made.json()) as { token: string };

  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Pages' });
  await expect(nav.getByRole('link', { name: 'Other clients' })).toBeVisible();
  await expect(nav.getByTestId('inbox-count')).toHaveCount(0);

  // A third-party client (the official SDK) calls a write tool through /mcp; its request waits.
  const client = new Client({ name: 'release-bot', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: { token: async () => token } }));
  let settled = false;
  const pending = client.callTool({ name: 'notes__create', arguments: { title: 'Ship notes', body: 'v2 is out' } }).finally(() => {
    settled = true;
  });

  // Pushed to the open tab: no reload.
  await expect(nav.getByTestId('inbox-count')).toHaveText(/^1/);
  await nav.getByRole('link', { name: /Other clients/ }).click();
  await expect(page).toHaveURL(/\/inbox$/);
  const card = page.getByTestId('client-approval-card');
  await expect(card).toHaveCount(1);
  await expect(card.getByTestId('client-name')).toHaveText('Release bot');
  await expect(card).toContainText('wants to run create on Notes.');
  await expect(card.getByTestId('client-approval-arguments')).toContainText('"title": "Ship notes"');
  await testInfo.attach('inbox.png', { body: await page.screenshot(), contentType: 'image/png' });
  if (process.env.INBOX_SCREENSHOT) await page.screenshot({ path: process.env.INBOX_SCREENSHOT });
  expect(settled).toBe(false);

  await card.getByRole('button', { name: 'Allow once' }).click();
  const result = await pending;
  expect(result.isError).toBeFalsy();
  await expect(card).toHaveCount(0);
  await expect(page.getByText('Nothing waits for you')).toBeVisible();
  await expect(nav.getByTestId('inbox-count')).toHaveCount(0);
  await client.close();

  // Once: one note, and the Activity log says which client ran it.
  const notes = await page.request.get('/api/activity');
  const entries = ((await notes.json()) as { entries: { content: { kind: string; client?: { name: string }; outcome?: string } }[] })
    .entries;
  expect(entries.filter((e) => e.content.kind === 'client_call').map((e) => [e.content.client?.name, e.content.outcome])).toEqual([
    ['Release bot', 'succeeded'],
  ]);
  await page.goto('/activity');
  await expect(page.getByText('by the MCP client “Release bot”')).toBeVisible();
});
