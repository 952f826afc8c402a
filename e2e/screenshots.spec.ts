import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';

import { EVERYTHING_HTTP_URL } from './fixtures/ports';
import {
  appOrigin,
  conversationWithTools,
  DEMO_CLOSING,
  jsonWrite,
  newUser,
  sendWithEnter,
  signInViaApi,
  signUpViaApi,
  waitForConversation,
  waitForIdle,
} from './helpers';

// PNGs for people to look at (git-ignored), at a desktop and a phone size.
const SHOTS_DIR = path.resolve('screenshots');
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const buf = fs.readFileSync(file);
  expect(buf.subarray(1, 4).toString('latin1'), `${file} is a PNG`).toBe('PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

async function shoot(page: Page, name: string, viewport: { width: number; height: number }): Promise<void> {
  const file = path.join(SHOTS_DIR, `${name}-${viewport.width}x${viewport.height}.png`);
  fs.rmSync(file, { force: true });
  await page.screenshot({ path: file, animations: 'disabled' });
  expect(pngSize(file)).toEqual(viewport);
}

const THEMES = ['light', 'dark'] as const;

/** The conversations the screenshots show, written once (by the first viewport) and revisited. */
interface Scenes {
  code: string;
  tools: string;
  approval: string;
  /** The path of a link to the three-call conversation, shared without tool details. */
  shared: string;
}

async function writeScenes(page: Page, origin: string): Promise<Scenes> {
  const code = await newConversationWith(
    page,
    'Show this back as code:\n\n```ts\nexport function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n```',
  );
  await expect(page.getByTestId('assistant-message').last()).toContainText(DEMO_CLOSING, { timeout: 20_000 });

  // Three calls in one turn, one of them answered with an image: server-everything, added and enabled over the API.
  const added = await page.request.post('/api/servers', {
    headers: jsonWrite(origin),
    data: { name: 'Everything', url: EVERYTHING_HTTP_URL },
  });
  expect(added.status(), await added.text()).toBe(201);
  const { server } = (await added.json()) as { server: { id: string; tools: { name: string; fingerprint: string }[] } };
  const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
  const enabled = await page.request.post(`/api/servers/${server.id}/enable`, { headers: jsonWrite(origin), data: { tools } });
  expect(enabled.status(), await enabled.text()).toBe(200);
  // Enabled on the servers page; switched on in the conversation, as its Tools panel does.
  const tools3 = await conversationWithTools(page, origin, [`server:${server.id}/*`]);
  await sendWithEnter(
    page,
    'call everything__get-tiny-image {}\ncall everything__get-sum {"a": 2, "b": 3}\ncall notes__search {"query": "plans"}',
  );
  await page.getByRole('button', { name: 'Allow all once' }).click();
  await waitForIdle(page.request, tools3);
  await expect(page.getByTestId('tool-call')).toHaveCount(3);

  // Shared twice: the shared page (details hidden, the default) and a second row on the Shared links page.
  const share = async (body: object) => {
    const res = await page.request.post(`/api/conversations/${tools3}/shares`, { headers: jsonWrite(origin), data: body });
    expect(res.status(), await res.text()).toBe(201);
    return new URL(((await res.json()) as { url: string }).url).pathname;
  };
  await share({ includeToolDetails: true, audience: 'signed_in', expiresIn: '30d' });
  const shared = await share({});

  const approval = await conversationWithTools(page, origin, ['tool:builtin-notes/delete']);
  await sendWithEnter(page, 'call notes__delete {"id": "6f1c1c3e-2b8a-4c1e-9a55-0d6f4c2f9e11", "confirmTitle": "Old plans"}');
  await expect(page.getByTestId('approval-card')).toBeVisible();
  return { code, tools: tools3, approval, shared };
}

async function newConversationWith(page: Page, text: string): Promise<string> {
  await page.goto('/');
  await sendWithEnter(page, text);
  return waitForConversation(page);
}

// One pass per page, theme and size; the conversations are written once and revisited.
test('screenshots at 1280×800 and 390×844, light and dark, of the pages people use most', async ({ browser, baseURL }) => {
  test.setTimeout(240_000);
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const origin = appOrigin(baseURL);
  const user = newUser('shots');
  let scenes: Scenes | null = null;

  for (const viewport of VIEWPORTS) {
    for (const theme of THEMES) {
      const narrow = viewport.width < 768;
      const context = await browser.newContext({ baseURL, viewport, deviceScaleFactor: 1, colorScheme: theme });
      const shot = (name: string) => shoot(page, `${name}-${theme}`, viewport);
      const page = await context.newPage();
      try {
        if (!scenes) await signUpViaApi(context.request, origin, user);
        await test.step(`sign-in at ${viewport.width}, ${theme}`, async () => {
          await page.goto('/sign-in');
          await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
          // The app follows the system's theme unless the person chose one.
          expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(theme === 'dark');
          await shot('sign-in');
        });
        await test.step(`first run (a new account's empty chat) at ${viewport.width}, ${theme}`, async () => {
          const newcomer = newUser(`shots-first-${viewport.width}-${theme}`);
          await signUpViaApi(context.request, origin, newcomer);
          await signInViaApi(context.request, newcomer.email, newcomer.password);
          await page.goto('/');
          await expect(page.getByRole('heading', { name: 'What can I help with?' })).toBeVisible();
          await expect(page.locator('#composer')).toBeFocused();
          const sidebar = page.getByRole('complementary', { name: 'Conversations' });
          await expect(sidebar).toBeVisible({ visible: !narrow });
          await expect(page.getByRole('button', { name: 'Open conversations' })).toBeVisible({ visible: narrow });
          await shot('first-run');
        });
        await signInViaApi(context.request, user.email, user.password);

        scenes ??= await writeScenes(page, origin);

        await test.step(`an answer with code at ${viewport.width}, ${theme}`, async () => {
          await page.goto(`/c/${scenes!.code}`);
          await expect(page.getByTestId('assistant-message').last().locator('pre').first()).toBeVisible();
          await shot('answer-code');
          if (narrow) {
            await page.getByRole('button', { name: 'Open conversations' }).click();
            await expect(page.getByRole('complementary', { name: 'Conversations' })).toBeVisible();
            await shot('drawer');
          }
        });

        await test.step(`three tool calls with an image at ${viewport.width}, ${theme}`, async () => {
          await page.goto(`/c/${scenes!.tools}`);
          await expect(page.getByTestId('tool-call')).toHaveCount(3);
          for (const card of await page.getByTestId('tool-call').all()) await card.locator('summary').first().click();
          await expect(page.getByRole('img').first()).toBeVisible();
          await page.getByTestId('turn-timeline').locator('summary').click();
          await page.getByTestId('tool-call').first().scrollIntoViewIfNeeded();
          await shot('tool-calls');
          await page.getByTestId('turn-timeline').scrollIntoViewIfNeeded();
          await shot('timeline');
        });

        await test.step(`an approval at ${viewport.width}, ${theme}`, async () => {
          await page.goto(`/c/${scenes!.approval}`);
          await expect(page.getByTestId('approval-card')).toBeVisible();
          await shot('approval');
        });

        await test.step(`the servers page at ${viewport.width}, ${theme}`, async () => {
          await page.goto('/servers');
          await expect(page.getByRole('region', { name: 'Everything', exact: true })).toBeVisible();
          await shot('servers');
        });

        await test.step(`the shared conversation at ${viewport.width}, ${theme}`, async () => {
          await page.goto(scenes!.shared);
          await expect(page.getByTestId('tool-call')).toHaveCount(3);
          await expect(page.getByTestId('shared-subtitle')).toBeVisible();
          await shot('shared-conversation');
        });

        await test.step(`the Share dialog and the Shared links page at ${viewport.width}, ${theme}`, async () => {
          await page.goto(`/c/${scenes!.tools}`);
          await page.getByRole('button', { name: 'Share', exact: true }).click();
          const dialog = page.getByRole('dialog', { name: /^Share/ });
          await expect(dialog.getByTestId('share-link')).toHaveCount(2);
          await shot('share-dialog');
          await page.goto('/shares');
          await expect(page.getByTestId('share-link')).toHaveCount(2);
          await shot('shared-links');
        });

        await test.step(`the tools panel at ${viewport.width}, ${theme}`, async () => {
          await page.goto(`/c/${scenes!.tools}`);
          await page.getByRole('button', { name: /^Tools/ }).click();
          const panel = page.getByRole('dialog', { name: 'Tools' });
          const everything = panel.getByRole('region', { name: 'Everything', exact: true });
          await expect(everything).toBeVisible();
          await shot('tools-panel');
          // A remote server's part: the server-wide switch, tools on and off, their badges.
          await everything.evaluate((el) => el.scrollIntoView({ block: 'start' }));
          await shot('tools-panel-server');
        });
      } finally {
        await context.close();
      }
    }
  }
});
