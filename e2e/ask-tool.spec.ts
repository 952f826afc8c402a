import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect, test } from '@playwright/test';

import { appOrigin, signedInUser } from './helpers';

/**
 * Switchboard's agent as a tool (issue 25): the person switches it on for a token in the Account
 * page's tools dialog; an MCP client then asks through /mcp (the demo model answers), and the
 * conversation it started shows in the sidebar and its header under the client's name.
 */
test("switchboard_ask: switched on in a token's tools dialog, asked by a client, its conversation marked with the client", async ({
  page,
  baseURL,
}, testInfo) => {
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'ask');
  const made = await page.request.post('/api/account/tokens', {
    headers: { origin },
    data: { name: 'Research agent', tools: ['notes__search'] },
  });
  expect(made.status()).toBe(201);
  const { token } = (await made.json()) as { token: string };

  await page.goto('/account');
  const section = page.getByRole('region', { name: 'Personal access tokens' });
  const row = section.getByTestId('token-list').getByRole('listitem');
  await expect(row.getByTestId('token-tools')).toHaveText('Exposes notes__search');
  await row.getByRole('button', { name: 'Tools of Research agent' }).click();
  const dialog = page.getByRole('dialog');
  const agentSwitch = dialog.getByRole('switch', { name: "Offer Switchboard's agent as a tool" });
  await expect(agentSwitch).not.toBeChecked(); // off by default
  await agentSwitch.click();
  await expect(agentSwitch).toBeChecked();
  await page.waitForTimeout(300); // the dialog's opening animation, for the picture
  await testInfo.attach('agent-switch.png', { body: await page.screenshot(), contentType: 'image/png' });
  if (process.env.ASK_SCREENSHOT) await page.screenshot({ path: process.env.ASK_SCREENSHOT });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId('token-tools')).toHaveText("Exposes notes__search, and Switchboard's agent (switchboard_ask)");

  const client = new Client({ name: 'Research agent', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: { token: async () => token } }));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['switchboard_ask', 'notes__search']);
  const answered = await client.callTool({ name: 'switchboard_ask', arguments: { prompt: 'Hello from another agent' } });
  await client.close();
  expect(answered.isError).toBeFalsy();
  const out = answered.structuredContent as { status: string; conversationId: string; url: string; answer: string };
  expect(out).toMatchObject({ status: 'answered', url: `${origin}/c/${out.conversationId}` });
  expect(out.answer.length).toBeGreaterThan(0);

  await page.goto(new URL(out.url).pathname);
  await expect(page.getByText('via Research agent')).toBeVisible();
  const item = page.getByRole('link', { name: /started by the MCP client “Research agent”/ });
  await expect(item).toBeVisible();
  await expect(item.getByTestId('started-by-client')).toBeVisible();
  await expect(page.getByText('Hello from another agent').first()).toBeVisible();
  await testInfo.attach('asked-conversation.png', { body: await page.screenshot(), contentType: 'image/png' });
  if (process.env.ASK_SCREENSHOT) await page.screenshot({ path: process.env.ASK_SCREENSHOT.replace(/\.png$/, '-conversation.png') });
});
