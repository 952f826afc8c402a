import { expect, test, type Page } from '@playwright/test';

import { appOrigin, DEMO_CLOSING, sendWithEnter, signedInUser, waitForConversation } from './helpers';

/** The page's background as [r, g, b]: computed colours may be oklch() or lab(), so a canvas converts them. */
async function background(page: Page): Promise<[number, number, number]> {
  return page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    return [r!, g!, b!];
  });
}
const isDark = (rgb: number[]) => rgb.every((c) => c < 60);
const isLight = (rgb: number[]) => rgb.every((c) => c > 200);

/** Collects Content-Security-Policy violations the browser reports. */
function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(m.text())) violations.push(m.text());
  });
  return violations;
}

test('the theme toggle switches the theme, the server renders the choice after a reload, and System follows the OS', async ({
  page,
  baseURL,
}) => {
  const csp = watchCsp(page);
  await signedInUser(page.context(), appOrigin(baseURL), 'theme');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/');
  const html = page.locator('html');
  const sidebar = page.getByRole('complementary', { name: 'Conversations' });
  const choice = (name: 'System' | 'Light' | 'Dark') => sidebar.getByRole('group', { name: 'Theme' }).getByRole('radio', { name });

  await test.step('by default it follows the system (light here)', async () => {
    await expect(choice('System')).toBeChecked();
    await expect(html).not.toHaveAttribute('data-theme');
    expect(isLight(await background(page))).toBe(true);
  });

  await test.step('Dark switches at once, form controls included', async () => {
    await choice('Dark').check();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    expect(isDark(await background(page))).toBe(true);
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe('dark');
  });

  await test.step('after a reload the first HTML already carries the choice (no flash of the light theme)', async () => {
    const raw = await (await page.request.get('/')).text();
    expect(raw).toMatch(/<html[^>]*data-theme="dark"/);
    expect(raw).toMatch(/<meta name="color-scheme" content="dark"/);
    await page.reload();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await expect(choice('Dark')).toBeChecked();
    expect(isDark(await background(page))).toBe(true);
  });

  await test.step('Light wins over a dark system; System then follows it', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await choice('Light').check();
    await expect(html).toHaveAttribute('data-theme', 'light');
    expect(isLight(await background(page))).toBe(true);
    await choice('System').check();
    await expect(html).not.toHaveAttribute('data-theme');
    expect(isDark(await background(page))).toBe(true);
    await page.reload();
    await expect(choice('System')).toBeChecked();
    expect(isDark(await background(page))).toBe(true);
  });

  expect(csp, 'no Content-Security-Policy violations').toEqual([]);
});

/** Elements that scroll sideways, other than code blocks and tables, which may. */
async function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push(`document: ${root.scrollWidth} > ${root.clientWidth}`);
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      if (el.closest('pre') || el.firstElementChild?.tagName === 'TABLE') continue;
      const { overflowX } = getComputedStyle(el);
      if ((overflowX === 'auto' || overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
        found.push(`${el.tagName.toLowerCase()}.${el.className.toString().slice(0, 60)}: ${el.scrollWidth} > ${el.clientWidth}`);
      }
    }
    return found;
  });
}

test('at 390 px wide nothing scrolls sideways and the shell’s controls are big enough to tap', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    const csp = watchCsp(page);
    await page.goto('/sign-in');
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
    expect(await horizontalOverflow(page)).toEqual([]);

    await signedInUser(context, appOrigin(baseURL), 'narrow');
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'What can I help with?' })).toBeVisible();
    expect(await horizontalOverflow(page)).toEqual([]);

    // A wide table, a long line of code and an unbroken URL, echoed back by the demo model.
    const wide = [
      'Wide things:',
      '',
      '| Column one | Column two | Column three | Column four | Column five |',
      '|---|---|---|---|---|',
      '| some text here | more text here | and more here | yet more text | the last cell |',
      '',
      '```',
      `const line = '${'x'.repeat(160)}';`,
      '```',
      '',
      `https://example.test/${'a'.repeat(120)}`,
    ].join('\n');
    await sendWithEnter(page, wide);
    await waitForConversation(page);
    await expect(page.getByTestId('assistant-message')).toContainText(DEMO_CLOSING, { timeout: 15_000 });
    expect(await horizontalOverflow(page)).toEqual([]);

    const targets = [page.getByRole('button', { name: 'Open conversations' }), page.getByRole('button', { name: 'Send' })];
    await page.getByRole('button', { name: 'Open conversations' }).click();
    const sidebar = page.getByRole('complementary', { name: 'Conversations' });
    await expect(sidebar).toBeVisible();
    expect(await horizontalOverflow(page)).toEqual([]);
    targets.push(
      sidebar.getByRole('button', { name: 'Close conversations' }),
      sidebar.getByRole('link', { name: 'New chat' }),
      sidebar.getByRole('button', { name: /^Rename/ }),
      sidebar.getByRole('button', { name: /^Delete/ }),
      sidebar.getByRole('radio', { name: 'Dark' }),
      sidebar.getByRole('button', { name: 'Sign out' }),
    );
    for (const target of targets) {
      const box = await target.boundingBox();
      expect(box, `${target} is on screen`).not.toBeNull();
      expect(box!.height, `${target} is at least 40 px tall`).toBeGreaterThanOrEqual(40);
    }
    expect(csp).toEqual([]);
  } finally {
    await context.close();
  }
});
