import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

import { FIXTURE_README_URI } from '../test/fixtures/fixture-content';
import { FIXTURE_API_KEY, FIXTURE_API_KEY_HEADER, FIXTURE_URL } from './fixtures/ports';
import { appOrigin, DEMO_OPENING, jsonWrite, signedInUser, waitForIdle } from './helpers';

/**
 * MCP prompts and resources in the composer, in Chromium: a prompt run from `/` (its argument in
 * the small form), a resource attached with `@` that the model quotes, a template's variable,
 * chips removed; the messages marked with the server; axe and screenshots in light and dark.
 */

const SHOTS_DIR = path.resolve('screenshots');
const SERVER = 'Fixture docs';

async function fixtureServer(page: Page, origin: string) {
  const added = await page.request.post('/api/servers', {
    headers: jsonWrite(origin),
    data: { name: SERVER, namespace: 'docs', url: FIXTURE_URL, headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY } },
  });
  expect(added.status(), await added.text()).toBe(201);
  const { server } = (await added.json()) as { server: { id: string; tools: { name: string; fingerprint: string }[] } };
  const enable = await page.request.post(`/api/servers/${server.id}/enable`, {
    headers: jsonWrite(origin),
    data: { tools: Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint])) },
  });
  expect(enable.status(), await enable.text()).toBe(200);
}

async function shoot(page: Page, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS_DIR, `prompts-${name}-${scheme}.png`), animations: 'disabled' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

// Not yet passing: typing after `/` does not filter the menu in the built page (all four prompts stay
// listed after `/re`). Fixed and re-enabled with issue 11's next slice; the lib and route tests cover the server side.
test('a prompt from `/`, a resource with `@` the model quotes, a template, marked messages', async ({ page, context, baseURL }) => {
  test.setTimeout(120_000);
  const origin = appOrigin(baseURL);
  await signedInUser(context, origin, 'prompts');
  await fixtureServer(page, origin);
  const created = await page.request.post('/api/conversations', { headers: jsonWrite(origin), data: {} });
  const { id } = (await created.json()) as { id: string };
  await page.goto(`/c/${id}`);
  const composer = page.locator('#composer');
  const menu = page.getByTestId('composer-menu');

  // `/` lists the server's prompts; typing filters; the arrow keys move; Enter opens the form.
  await composer.fill('/');
  await expect(menu.getByRole('option')).toHaveText([/summarize/, /review_draft/, /assistant_last/, /huge/]);
  await expect(menu.getByRole('option').first()).toContainText(SERVER);
  await composer.pressSequentially('re');
  await expect(menu.getByRole('option')).toHaveText([/review_draft/]);
  await composer.fill('/sum');
  await expect(menu.getByRole('option')).toHaveText([/summarize.*2 arguments, 1 required/]);
  await expect(menu.getByRole('option').first()).toHaveAttribute('aria-selected', 'true');
  await shoot(page, 'menu');
  await composer.press('Enter');
  const form = menu.getByRole('form', { name: 'Summarize a topic' });
  await expect(form).toBeVisible();
  await expect(form.getByLabel('topic')).toBeFocused();
  await form.getByRole('button', { name: 'Run prompt' }).click();
  await expect(form.getByText('Required.')).toBeVisible(); // the required one, marked, was left empty
  await shoot(page, 'form');
  await form.getByLabel('topic').fill('the tides');
  await form.getByLabel('topic').press('Enter');

  // The prompt's message is marked with the server and the prompt; the model answers it.
  const promptMessage = page.getByTestId('user-message').filter({ hasText: 'Summarize the tides.' });
  await expect(promptMessage.getByTestId('prompt-origin')).toHaveText(`From ${SERVER}: summarize`);
  await expect(page.getByTestId('assistant-message').last()).toContainText(`${DEMO_OPENING}`);
  await expect(page.getByTestId('assistant-message').last()).toContainText('You wrote: "Summarize the tides."');
  await waitForIdle(page.request, id);

  // `@` lists resources and templates; Enter attaches the first as a chip with its server.
  await composer.fill('@read');
  await expect(menu.getByRole('option')).toHaveText([/Fixture readme.*fixture:\/\/docs\/readme/]);
  await shoot(page, 'picker');
  await composer.press('Enter');
  const chips = page.getByTestId('attachment-chip');
  await expect(chips).toHaveText([`Fixture readme· ${SERVER}`]);
  // A template asks for its variable; its chip can be removed.
  await composer.pressSequentially('@greet');
  await composer.press('Enter');
  const templateForm = menu.getByRole('form', { name: 'greeting' });
  await templateForm.getByLabel('name').fill('Ada');
  await templateForm.getByRole('button', { name: 'Attach' }).click();
  await expect(chips).toHaveCount(2);
  await expect(chips.nth(1)).toContainText('fixture://greetings/Ada');
  await expect(composer).toBeFocused();
  await shoot(page, 'chips');
  await page.getByRole('button', { name: 'Remove fixture://greetings/Ada' }).click();
  await expect(chips).toHaveCount(1);

  await composer.fill('What does the readme say?');
  await composer.press('Enter');
  await expect(chips).toHaveCount(0);
  const attached = page.getByTestId('attached-resource');
  await expect(attached).toContainText(FIXTURE_README_URI);
  await expect(attached).toContainText(`from ${SERVER}`);
  await expect(page.getByTestId('assistant-message').last()).toContainText(
    `${FIXTURE_README_URI} begins: “The fixture readme says: tea is served at four.”`,
  );
  await waitForIdle(page.request, id);
  // The card opens to the text the model read.
  await attached.getByText(FIXTURE_README_URI).click();
  await expect(attached).toContainText('Second line of the readme.');

  // Both came from an untrusted server: the conversation is tainted, and the panel says by what.
  const tools = (await (await page.request.get(`/api/conversations/${id}/tools`)).json()) as { tainted: { reason: string } | null };
  expect(tools.tainted?.reason).toMatch(new RegExp(`^The prompt "summarize" of the server "${SERVER}" \\(content not trusted\\)`));

  // After a reload the marks are still there (read from the stored origin).
  await page.reload();
  await expect(page.getByTestId('prompt-origin')).toHaveText(`From ${SERVER}: summarize`);
  await expect(page.getByTestId('attached-resource')).toContainText(FIXTURE_README_URI);
  await shoot(page, 'marked');
});

test('Escape closes the menu; a `/` message with no matching prompt is sent as text', async ({ page, context, baseURL }) => {
  const origin = appOrigin(baseURL);
  await signedInUser(context, origin, 'prompts-esc');
  await fixtureServer(page, origin);
  const created = await page.request.post('/api/conversations', { headers: jsonWrite(origin), data: {} });
  const { id } = (await created.json()) as { id: string };
  await page.goto(`/c/${id}`);
  const composer = page.locator('#composer');
  await composer.fill('/');
  await expect(page.getByTestId('composer-menu')).toBeVisible();
  await composer.press('Escape');
  await expect(page.getByTestId('composer-menu')).toBeHidden();
  await composer.fill('/nothing-like-this');
  await expect(page.getByTestId('composer-menu')).toContainText('No prompt matches “nothing-like-this”.');
  await composer.press('Enter');
  await expect(page.getByTestId('user-message').last()).toHaveText('/nothing-like-this');
  await waitForIdle(page.request, id);
});
