import { writeFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { expect, test } from '@playwright/test';

import { ThirdPartyOAuthClient } from '../test/fixtures/oauth-third-party';
import { appOrigin, newUser, signUpViaApi } from './helpers';

/** Where the third-party client would listen for the browser coming back (the test answers it in the browser). */
const CALLBACK = 'http://127.0.0.1:45998/callback';

test('an MCP client connects through the consent screen: discovery, sign-in, tools picked, a read tool, then revoked', async ({
  page,
  baseURL,
}, testInfo) => {
  const origin = appOrigin(baseURL);
  const user = newUser('mcp-client');
  await signUpViaApi(page.context().request, origin, user);

  // The official client SDK meets /mcp without a token: 401, discovery, registration, an authorization URL.
  const provider = new ThirdPartyOAuthClient('E2E Agent', CALLBACK);
  const first = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider });
  await expect(new Client({ name: 'E2E Agent', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.href.startsWith(`${origin}/oauth/authorize?`)).toBe(true);

  // Signed out: sign in first, then back to the same request.
  await page.goto(authorizationUrl.href);
  await expect(page).toHaveURL((url) => url.pathname === '/sign-in' && url.searchParams.get('next')!.startsWith('/oauth/authorize?'));
  await page.locator('#field-email').fill(user.email);
  await page.locator('#field-password').fill(user.password);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/oauth/authorize');

  // The consent screen cannot be framed.
  const response = await page.request.get(authorizationUrl.href);
  expect(response.headers()['x-frame-options']).toBe('DENY');
  expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");

  await expect(page.getByRole('heading', { name: 'Connect E2E Agent to Switchboard?' })).toBeVisible();
  const consent = page.getByTestId('consent');
  await expect(consent).toContainText('127.0.0.1:45998');
  await expect(consent).toContainText('self-described');
  const picker = consent.getByRole('group', { name: 'Tools it may see and call' });
  await expect(picker.getByRole('checkbox', { checked: true })).toHaveCount(0);
  await picker.getByLabel(/notes__search/).check();
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  const consentShot = await page.screenshot({ fullPage: true });
  await testInfo.attach('consent.png', { body: consentShot, contentType: 'image/png' });
  // For a person to look at (not a check): MCP_CLIENTS_SCREENSHOTS=<folder>.
  if (process.env.MCP_CLIENTS_SCREENSHOTS) writeFileSync(`${process.env.MCP_CLIENTS_SCREENSHOTS}/consent.png`, consentShot);

  // Allow: the browser goes back to the client with a code (the test stands in for its listener).
  await page.route(`${CALLBACK}**`, (route) => route.fulfill({ contentType: 'text/plain', body: 'You can close this window.' }));
  await consent.getByRole('button', { name: 'Allow' }).click();
  await expect(page).toHaveURL((url) => url.href.startsWith(CALLBACK));
  const back = new URL(page.url());
  expect(back.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
  await first.finishAuth(back.searchParams);

  const client = new Client({ name: 'E2E Agent', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['notes__search']);
  const result = await client.callTool({ name: 'notes__search', arguments: { query: '' } });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual({ notes: [] });

  // The Account page lists it; Revoke cuts it off at its next request.
  await page.goto('/account');
  const section = page.getByRole('region', { name: 'Connected clients' });
  const row = section.getByTestId('client-list').getByRole('listitem');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('E2E Agent');
  await expect(row).toContainText('127.0.0.1:45998');
  await expect(row.getByTestId('client-tools')).toHaveText('Exposes notes__search');
  await expect(row).toContainText('Last used');
  await section.scrollIntoViewIfNeeded();
  const listShot = await section.screenshot();
  await testInfo.attach('connected-clients.png', { body: listShot, contentType: 'image/png' });
  if (process.env.MCP_CLIENTS_SCREENSHOTS) writeFileSync(`${process.env.MCP_CLIENTS_SCREENSHOTS}/connected-clients.png`, listShot);
  await row.getByRole('button', { name: 'Revoke E2E Agent' }).click();
  await page.getByRole('dialog', { name: 'Revoke “E2E Agent”?' }).getByRole('button', { name: 'Revoke client' }).click();
  await expect(section.getByText('No connected clients.')).toBeVisible();
  await expect(client.callTool({ name: 'notes__search', arguments: { query: '' } })).rejects.toThrow();
  await client.close();
});
