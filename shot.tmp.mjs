import { chromium } from '@playwright/test';
const B = 'http://localhost:3000';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
for (const [w, h] of [[1280, 800], [390, 844]]) {
  const ctx = await browser.newContext({ viewport: { width: w, height: h } });
  const page = await ctx.newPage();
  page.on('console', (m) => m.type() === 'error' && console.log('console:', m.text()));
  await page.goto(B + '/sign-in');
  await page.screenshot({ path: `/work/main/screenshots/signin-${w}.png` });
  await page.fill('#field-email', 'a@example.com');
  await page.fill('#field-password', 'password123');
  await page.click('button[type=submit]');
  await page.waitForURL(B + '/');
  await page.screenshot({ path: `/work/main/screenshots/empty-${w}.png` });
  await page.fill('#composer', 'Show me a streamed answer with some **markdown** please. ' + 'And more words. '.repeat(5));
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/c\//);
  await page.waitForTimeout(600);
  await page.screenshot({ path: `/work/main/screenshots/streaming-${w}.png` });
  await page.waitForSelector('[data-testid=assistant-message]');
  await page.screenshot({ path: `/work/main/screenshots/answer-${w}.png` });
  await ctx.close();
}
await browser.close();
