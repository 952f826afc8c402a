// `npm run bench:ui`: how a long conversation feels in the browser. Starts the built app (run
// `npm run build` first) on an empty embedded database, writes a conversation of 300 messages
// with 100 tool calls through the API with the demo model, then in Chromium measures: loading
// it (the end of it comes with the page), reading the rest back by scrolling to the top, scrolling
// it top to bottom, and streaming one more answer into it — main-thread long tasks,
// frame times and heap, as figures to compare before and after a change.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type APIRequestContext, type Page } from '@playwright/test';

import { jsonWrite, newUser, signInViaApi, signUpViaApi } from '../e2e/helpers';

const PORT = Number(process.env.BENCH_UI_PORT ?? 3395);
const ORIGIN = `http://localhost:${PORT}`;
const TOOL_TURNS = 50; // two calls each: 100 tool calls, 4 messages per turn
const PLAIN_TURNS = 50; // 2 messages per turn: 300 messages in all

async function startApp(dataDir: string): Promise<ChildProcess> {
  const app = spawn('npx', ['next', 'start', '-H', '127.0.0.1', '-p', String(PORT)], {
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      SWITCHBOARD_DATA_DIR: dataDir,
      PASSWORD_HASH_COST: 'test',
      SWITCHBOARD_LIMITS: JSON.stringify({ messagesPerMinute: 1_000_000 }),
      DATABASE_URL: '',
      // Words as fast as the app takes them: seeding stays quick, and streaming the last answer
      // is the hardest case for the page (every delta re-renders what depends on it).
      DEMO_MODEL_DELAY_MS: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  for (let i = 0; i < 360; i++) {
    const up = await fetch(`${ORIGIN}/sign-in`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return app;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (app.pid) process.kill(-app.pid, 'SIGTERM');
  throw new Error(`the app did not answer on ${ORIGIN} within three minutes (did you run npm run build?)`);
}

async function send(request: APIRequestContext, conversationId: string, text: string): Promise<void> {
  const res = await request.post(`${ORIGIN}/api/conversations/${conversationId}/messages`, { headers: jsonWrite(ORIGIN), data: { text } });
  if (res.status() !== 202) throw new Error(`sending failed: ${res.status()} ${await res.text()}`);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 40))) {
    const view = (await (await request.get(`${ORIGIN}/api/conversations/${conversationId}`)).json()) as { activeRun: unknown };
    if (view.activeRun === null) return;
  }
  throw new Error(`conversation ${conversationId} still has an active run after a minute`);
}

async function seed(request: APIRequestContext): Promise<string> {
  const created = await request.post(`${ORIGIN}/api/conversations`, { headers: jsonWrite(ORIGIN), data: { title: 'A long conversation' } });
  if (created.status() !== 201) throw new Error(`creating the conversation failed: ${created.status()} ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const started = performance.now();
  for (let i = 0; i < TOOL_TURNS + PLAIN_TURNS; i++) {
    const text =
      i % 2 === 0 && i / 2 < TOOL_TURNS
        ? `call notes__search {"query": "turn ${i}"}\ncall sandbox__run_js {"code": "return ${i} * 2"}`
        : `Turn ${i}: a question with some **markdown**, a list\n\n- one\n- two\n\nand code:\n\n\`\`\`ts\nconst x: number = ${i};\n\`\`\``;
    await send(request, id, text);
    if ((i + 1) % 25 === 0) console.log(`  ${i + 1} of ${TOOL_TURNS + PLAIN_TURNS} turns written`);
  }
  console.log(`seeded 300 messages and 100 tool calls in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return id;
}

/** Long tasks (>50 ms on the main thread), collected in the page by one observer from its start. */
function collectLongTasks(): void {
  const w = window as unknown as { __long: number[] };
  w.__long = [];
  new PerformanceObserver((list) => list.getEntries().forEach((e) => w.__long.push(e.duration))).observe({
    type: 'longtask',
    buffered: true,
  });
}

/** The long tasks since the last call (each phase reads and empties the list). */
async function longTasks(page: Page): Promise<string> {
  const durations = await page.evaluate(() => (window as unknown as { __long: number[] }).__long.splice(0));
  const total = durations.reduce((a, b) => a + b, 0);
  return `${durations.length} long tasks, ${total.toFixed(0)} ms in all, longest ${Math.max(0, ...durations).toFixed(0)} ms`;
}

async function heapMb(page: Page): Promise<string> {
  const bytes = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0);
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-ui-'));
  const app = await startApp(dataDir);
  const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium' });
  try {
    const context = await browser.newContext({ baseURL: ORIGIN, viewport: { width: 1280, height: 800 } });
    const user = newUser('bench-ui');
    await signUpViaApi(context.request, ORIGIN, user);
    await signInViaApi(context.request, user.email, user.password);
    const id = await seed(context.request);

    const page = await context.newPage();
    await page.addInitScript(collectLongTasks);
    const loadStart = performance.now();
    await page.goto(`/c/${id}`);
    await page.getByTestId('assistant-message').last().waitFor();
    const messages = await page.getByTestId('assistant-message').count();
    const cards = await page.getByTestId('tool-call').count();
    console.log(
      `load: ${(performance.now() - loadStart).toFixed(0)} ms to the last message (${messages} answers, ${cards} tool cards shown)`,
    );
    console.log(`load: ${await longTasks(page)}; heap ${await heapMb(page)}`);

    // The page came with the end of the conversation (lib/chat/path-page.ts): scroll back to the
    // first message, which reads the pages before it, so the scroll below runs over all 300.
    const readBackStart = performance.now();
    await page.waitForFunction(
      (all) => {
        const scroller = document.querySelector('[data-testid="conversation-scroller"]');
        if (scroller) scroller.scrollTop = 0;
        return document.querySelectorAll('[data-testid="tool-call"]').length >= all;
      },
      TOOL_TURNS * 2,
      { polling: 'raf', timeout: 60_000 },
    );
    console.log(`read back: every message on the page ${(performance.now() - readBackStart).toFixed(0)} ms after scrolling to the top`);
    console.log(`read back: ${await longTasks(page)}; heap ${await heapMb(page)}`);

    // Scroll from the top to the bottom in 40 steps, one per frame, and time the frames.
    const frames = await page.evaluate(async () => {
      const scroller = [...document.querySelectorAll('div')].find(
        (d) => d.scrollHeight > d.clientHeight + 1000 && getComputedStyle(d).overflowY === 'auto',
      );
      if (!scroller) return [];
      scroller.scrollTop = 0;
      const times: number[] = [];
      let last = await new Promise<number>(requestAnimationFrame);
      for (let i = 1; i <= 40; i++) {
        scroller.scrollTop = (scroller.scrollHeight * i) / 40;
        const now = await new Promise<number>(requestAnimationFrame);
        times.push(now - last);
        last = now;
      }
      return times;
    });
    const sorted = [...frames].sort((a, b) => a - b);
    const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]?.toFixed(1);
    console.log(`scroll: frame p50 ${p(0.5)} ms · p95 ${p(0.95)} ms · max ${sorted.at(-1)?.toFixed(1)} ms over ${frames.length} frames`);
    console.log(`scroll: ${await longTasks(page)}`);

    // One more answer streamed into the long conversation (at the demo model's full speed, so the
    // page takes deltas as fast as they come).
    await longTasks(page); // what loading and scrolling left
    const answers = await page.getByTestId('assistant-message').count();
    const sendStart = performance.now();
    await page.locator('#composer').fill('One more answer, streamed into a long conversation, please.');
    await page.locator('#composer').press('Enter');
    await page.getByTestId('assistant-message').nth(answers).waitFor({ timeout: 60_000 });
    console.log(`stream: the answer was on screen, complete, ${(performance.now() - sendStart).toFixed(0)} ms after sending`);
    console.log(`stream: ${await longTasks(page)}; heap ${await heapMb(page)}`);
  } finally {
    await browser.close();
    if (app.pid) process.kill(-app.pid, 'SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
