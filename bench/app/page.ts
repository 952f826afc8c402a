import { chromium, type Page } from '@playwright/test';

import { createConversation, turn } from './client';
import { LOAD_LIMITS } from './load';
import { measured, single, type BenchRow } from './rows';
import { startApp } from './server';

/**
 * The chat page with a long conversation, in Chromium: 300 messages with 100 tool calls (the
 * conversation of scripts/bench-ui.ts, written the same way: 50 turns with two tool calls each
 * and 50 plain turns with Markdown, through the API with the demo model), then loaded `loads`
 * times, each in a fresh browser context (a cold cache). Time to interactive is taken from the
 * navigation's start to the later of: the composer hydrated (React has attached to it) with 100
 * assistant messages drawn (of the 150, newest first: the page draws the end first and older
 * messages after it), and the end of the last long task (> 50 ms) that began before a quiet
 * second followed. Beside it: when the whole conversation is drawn (every tool card), and the
 * longest task. The first-load JavaScript is every script the page loaded, as sent (compressed)
 * and as decoded; the highlight worker's own scripts are not the page's and are not in it.
 * `npm run bench:ui` keeps the scroll and streaming figures.
 */

export interface PageOptions {
  port: number;
  loads: number;
}

const SECTION = 'Page';
const TOOL_TURNS = 50;
const PLAIN_TURNS = 50;
const QUIET_MS = 1_000;

function turnText(i: number): string {
  return i % 2 === 0 && i / 2 < TOOL_TURNS
    ? `call notes__search {"query": "turn ${i}"}\ncall sandbox__run_js {"code": "return ${i} * 2"}`
    : `Turn ${i}: a question with some **markdown**, a list\n\n- one\n- two\n\nand code:\n\n\`\`\`ts\nconst x: number = ${i};\n\`\`\``;
}

/** Long tasks from the page's start, kept in the page (installed before any script runs). */
function collectLongTasks(): void {
  const w = window as unknown as { __long: { start: number; end: number }[] };
  w.__long = [];
  new PerformanceObserver((list) =>
    list.getEntries().forEach((e) => w.__long.push({ start: e.startTime, end: e.startTime + e.duration })),
  ).observe({
    type: 'longtask',
    buffered: true,
  });
}

async function oneLoad(
  page: Page,
  url: string,
): Promise<{
  ttiMs: number;
  readyMs: number;
  allDrawnMs: number;
  jsSent: number;
  jsDecoded: number;
  longTasks: number;
  longestTaskMs: number;
}> {
  await page.addInitScript(collectLongTasks);
  await page.goto(url);
  const readyMs = await page.waitForFunction(
    () => {
      const composer = document.querySelector('#composer');
      const hydrated = !!composer && Object.keys(composer).some((k) => k.startsWith('__reactProps'));
      const answers = document.querySelectorAll('[data-testid="assistant-message"]').length;
      return hydrated && answers >= 100 ? performance.now() : 0;
    },
    undefined,
    { polling: 'raf', timeout: 60_000 },
  );
  const ready = (await readyMs.jsonValue()) as number;
  // The older messages are drawn after it, a step at a time (useRevealFromEnd): wait for all of
  // them, so the tool cards are counted with the whole conversation on the page.
  const allDrawnMs = await page.waitForFunction(
    (cards) => (document.querySelectorAll('[data-testid="tool-call"]').length >= cards ? performance.now() : 0),
    TOOL_TURNS * 2,
    { polling: 'raf', timeout: 60_000 },
  );
  const allDrawn = (await allDrawnMs.jsonValue()) as number;
  // Wait for a quiet second with no long task, then read them all.
  await page.waitForFunction(
    (quiet) => {
      const tasks = (window as unknown as { __long: { end: number }[] }).__long;
      const lastEnd = Math.max(0, ...tasks.map((t) => t.end));
      return performance.now() - lastEnd > quiet;
    },
    QUIET_MS,
    { polling: 100, timeout: 60_000 },
  );
  return page.evaluate(
    ({ ready, allDrawn }) => {
      const tasks = (window as unknown as { __long: { start: number; end: number }[] }).__long;
      const scripts = performance
        .getEntriesByType('resource')
        .filter(
          (e): e is PerformanceResourceTiming => (e as PerformanceResourceTiming).initiatorType === 'script' || e.name.endsWith('.js'),
        );
      return {
        readyMs: ready,
        allDrawnMs: allDrawn,
        ttiMs: Math.max(ready, ...tasks.map((t) => t.end)),
        jsSent: scripts.reduce((s, e) => s + e.transferSize, 0),
        jsDecoded: scripts.reduce((s, e) => s + e.decodedBodySize, 0),
        longTasks: tasks.length,
        longestTaskMs: Math.max(0, ...tasks.map((t) => t.end - t.start)),
      };
    },
    { ready, allDrawn },
  );
}

export async function pageBench(opts: PageOptions): Promise<BenchRow[]> {
  const app = await startApp({ database: 'pglite', port: opts.port, model: 'demo', users: 1, limits: LOAD_LIMITS });
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const user = app.users[0]!;
    const id = await createConversation(app.origin, user, 'A long conversation');
    for (let i = 0; i < TOOL_TURNS + PLAIN_TURNS; i++) await turn(app.origin, user, id, turnText(i));
    const [name, ...value] = user.cookie.split('=');
    const loads = [];
    for (let i = 0; i < opts.loads + 1; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addCookies([{ name: name!, value: value.join('='), url: app.origin }]);
      const page = await context.newPage();
      const load = await oneLoad(page, `${app.origin}/c/${id}`);
      const cards = await page.getByTestId('tool-call').count();
      if (cards < 100) throw new Error(`the page shows ${cards} tool cards, expected 100`);
      await context.close();
      // The first load warms the server (route modules, JIT); it is not counted.
      if (i > 0) loads.push(load);
    }
    return [
      measured(
        SECTION,
        'time to interactive, 300 messages and 100 tool calls',
        loads.map((l) => l.ttiMs),
        'ms',
        1500,
      ),
      measured(
        SECTION,
        'last message shown and composer hydrated',
        loads.map((l) => l.readyMs),
        'ms',
      ),
      measured(
        SECTION,
        'whole conversation drawn (all 100 tool cards)',
        loads.map((l) => l.allDrawnMs),
        'ms',
      ),
      measured(
        SECTION,
        'long tasks while loading',
        loads.map((l) => l.longTasks),
        'tasks',
      ),
      measured(
        SECTION,
        'longest task while loading',
        loads.map((l) => l.longestTaskMs),
        'ms',
      ),
      single(SECTION, 'first-load JavaScript of the chat page, sent (compressed)', loads[0]!.jsSent / 1024, 'KB'),
      single(SECTION, 'first-load JavaScript of the chat page, decoded', loads[0]!.jsDecoded / 1024, 'KB'),
    ];
  } finally {
    await browser.close();
    await app.stop();
  }
}
