import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';

import { appOrigin, DEMO_CLOSING, expectedTitle, newUser, sendWithEnter, signInViaApi, signUpViaApi, waitForConversation } from './helpers';

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

test('screenshots of sign-in, the empty chat and a streamed answer at 1280×800 and 390×844', async ({ browser, baseURL }) => {
  test.setTimeout(60_000);
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const origin = appOrigin(baseURL);
  const user = newUser('shots');

  for (const viewport of VIEWPORTS) {
    const narrow = viewport.width < 768;
    const context = await browser.newContext({ baseURL, viewport, deviceScaleFactor: 1 });
    try {
      const page = await context.newPage();
      if (viewport === VIEWPORTS[0]) await signUpViaApi(context.request, origin, user);

      await test.step(`sign-in page at ${viewport.width}`, async () => {
        await page.goto('/sign-in');
        await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
        await shoot(page, 'sign-in', viewport);
      });

      await signInViaApi(context.request, user.email, user.password);

      await test.step(`empty chat at ${viewport.width}`, async () => {
        await page.goto('/');
        await expect(page.getByRole('heading', { name: 'What can I help with?' })).toBeVisible();
        await expect(page.locator('#composer')).toBeFocused();
        const sidebar = page.getByRole('complementary', { name: 'Conversations' });
        const opener = page.getByRole('button', { name: 'Open conversations' });
        if (narrow) {
          await expect(sidebar).toBeHidden();
          await expect(opener).toBeVisible();
        } else {
          await expect(sidebar).toBeVisible();
          await expect(opener).toBeHidden();
        }
        await shoot(page, 'empty-chat', viewport);
      });

      await test.step(`streamed answer at ${viewport.width}`, async () => {
        const text = `At ${viewport.width} pixels wide, show me how this looks, with enough words to wrap onto a second line.`;
        await sendWithEnter(page, text);
        await waitForConversation(page);
        await expect(page.getByTestId('streaming-message')).toContainText('offline demo model');
        await expect(page.getByTestId('assistant-message')).toContainText(DEMO_CLOSING, { timeout: 15_000 });
        await expect(page.getByTestId('assistant-message')).toContainText(`You wrote: "${text}"`);
        await shoot(page, 'answer', viewport);
        if (narrow) {
          // The drawer opens over the page and lists the conversation.
          await page.getByRole('button', { name: 'Open conversations' }).click();
          const sidebar = page.getByRole('complementary', { name: 'Conversations' });
          await expect(sidebar).toBeVisible();
          await expect(sidebar.getByRole('link', { name: expectedTitle(text) })).toBeVisible();
          await shoot(page, 'drawer', viewport);
        }
      });
    } finally {
      await context.close();
    }
  }
});

// Only when @axe-core/playwright is installed (it is not a dependency of this project).
const require = createRequire(import.meta.url);
function axeInstalled(): boolean {
  try {
    require.resolve('@axe-core/playwright');
    return true;
  } catch {
    return false;
  }
}

test('accessibility (axe): sign-in, sign-up, empty chat and an answer have no serious violations', async ({ page, baseURL }, testInfo) => {
  test.skip(!axeInstalled(), '@axe-core/playwright is not installed');
  // A variable specifier: the suite still compiles where the package is absent.
  const specifier = '@axe-core/playwright';
  const { default: AxeBuilder } = (await import(specifier)) as {
    default: new (opts: { page: Page }) => {
      analyze(): Promise<{ violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown }[] }[] }>;
    };
  };
  const found: Record<string, { id: string; impact?: string | null; help: string; nodes: number }[]> = {};
  const check = async (name: string) => {
    const { violations } = await new AxeBuilder({ page }).analyze();
    found[name] = violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  };

  try {
    await page.goto('/sign-in');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    expect(await check('sign-in')).toEqual([]);
    await page.goto('/sign-up');
    expect(await check('sign-up')).toEqual([]);

    const user = newUser('axe');
    await signUpViaApi(page.request, appOrigin(baseURL), user);
    await signInViaApi(page.request, user.email, user.password);
    await page.goto('/');
    await expect(page.locator('#composer')).toBeVisible();
    expect(await check('empty-chat')).toEqual([]);

    await sendWithEnter(page, 'Check the answer page for accessibility.');
    await waitForConversation(page);
    await expect(page.getByTestId('assistant-message')).toContainText(DEMO_CLOSING, { timeout: 15_000 });
    expect(await check('answer')).toEqual([]);
  } finally {
    // Every finding, minor ones included, for whoever reads the report.
    await testInfo.attach('axe-violations.json', { body: JSON.stringify(found, null, 2), contentType: 'application/json' });
  }
});
