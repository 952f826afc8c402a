import { chromium, type Page } from '@playwright/test';

import { createConversation, turn } from './client';
import { LOAD_LIMITS } from './load';
import { measured, single, type BenchRow } from './rows';
import { startApp } from './server';

/**
 * The chat page with a long conversation, in Chromium: 300 messages with 100 tool calls (the
 * conversation of scripts/bench-ui.ts, written the same way: 50 turns with two tool calls each
 * and 50 plain turns with Markdown, through the API with the demo model), then loaded `loads`
 * times, each in a fresh browser context (a cold cache). The page comes with the end of the path
 * (lib/chat/path-page.ts: 60 messages, starting a turn) and reads the rest as the person scrolls
 * back. Time to interactive is taken from the navigation's start to the later of: the composer
 * hydrated (React has attached to it) with the page's answers drawn, and the end of the last long
 * task (> 50 ms) that began before a quiet second followed. Beside it: the page's HTML with its
 * server-rendered payload, when the page's own messages are all drawn (its tool cards), how long
 * scrolling back to the first message takes until all 100 tool cards are drawn, and the longest
 * task. The first-load JavaScript is every script the page loaded, as sent (compressed) and as
 * decoded; the highlight worker's own scripts are not the page's and are not in it.
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

/** What the page comes with: its answers and its tool cards (the end of the path). */
type FirstPage = { answers: number; cards: number };

async function oneLoad(
  page: Page,
  url: string,
  first: FirstPage,
): Promise<{
  ttiMs: number;
  readyMs: number;
  pageDrawnMs: number;
  readBackMs: number;
  jsSent: number;
  jsDecoded: number;
  longTasks: number;
  longestTaskMs: number;
}> {
  await page.addInitScript(collectLongTasks);
  await page.goto(url);
  const readyMs = await page.waitForFunction(
    (answersOnPage) => {
      const composer = document.querySelector('#composer');
      const hydrated = !!composer && Object.keys(composer).some((k) => k.startsWith('__reactProps'));
      const answers = document.querySelectorAll('[data-testid="assistant-message"]').length;
      return hydrated && answers >= answersOnPage ? performance.now() : 0;
    },
    first.answers,
    { polling: 'raf', timeout: 60_000 },
  );
  const ready = (await readyMs.jsonValue()) as number;
  // The page's older messages are drawn after it, a step at a time (useRevealFromEnd).
  const pageDrawnMs = await page.waitForFunction(
    (cards) => (document.querySelectorAll('[data-testid="tool-call"]').length >= cards ? performance.now() : 0),
    first.cards,
    { polling: 'raf', timeout: 60_000 },
  );
  const pageDrawn = (await pageDrawnMs.jsonValue()) as number;
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
  const loaded = await page.evaluate(
    ({ ready, pageDrawn }) => {
      const tasks = (window as unknown as { __long: { start: number; end: number }[] }).__long;
      const scripts = performance
        .getEntriesByType('resource')
        .filter(
          (e): e is PerformanceResourceTiming => (e as PerformanceResourceTiming).initiatorType === 'script' || e.name.endsWith('.js'),
        );
      return {
        readyMs: ready,
        pageDrawnMs: pageDrawn,
        ttiMs: Math.max(ready, ...tasks.map((t) => t.end)),
        jsSent: scripts.reduce((s, e) => s + e.transferSize, 0),
        jsDecoded: scripts.reduce((s, e) => s + e.decodedBodySize, 0),
        longTasks: tasks.length,
        longestTaskMs: Math.max(0, ...tasks.map((t) => t.end - t.start)),
      };
    },
    { ready, pageDrawn },
  );
  // Then (its long tasks not counted above) back to the first message: at the top every frame, until every tool card is drawn.
  const readBack = (await (
    await page.waitForFunction(
      ({ cards, from }) => {
        const scroller = document.querySelector('[data-testid="conversation-scroller"]');
        if (scroller) scroller.scrollTop = 0;
        return document.querySelectorAll('[data-testid="tool-call"]').length >= cards ? performance.now() - from : 0;
      },
      { cards: TOOL_TURNS * 2, from: await page.evaluate(() => performance.now()) },
      { polling: 'raf', timeout: 60_000 },
    )
  ).jsonValue()) as number;
  return { ...loaded, readBackMs: readBack };
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
    // What the page comes with, as the conversation's view says, and its HTML.
    const view = (await (await fetch(`${app.origin}/api/conversations/${id}`, { headers: { Cookie: user.cookie } })).json()) as {
      messages: { role: string; content: { type: string }[] }[];
    };
    const first: FirstPage = {
      answers: view.messages.filter((m) => m.role === 'assistant').length,
      cards: view.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_use')).length,
    };
    const html = await (await fetch(`${app.origin}/c/${id}`, { headers: { Cookie: user.cookie } })).text();
    const [name, ...value] = user.cookie.split('=');
    const loads = [];
    for (let i = 0; i < opts.loads + 1; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addCookies([{ name: name!, value: value.join('='), url: app.origin }]);
      const page = await context.newPage();
      const load = await oneLoad(page, `${app.origin}/c/${id}`, first);
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
        `last message shown and composer hydrated (the page's ${view.messages.length} messages)`,
        loads.map((l) => l.readyMs),
        'ms',
      ),
      measured(
        SECTION,
        `the page's messages drawn (its ${first.cards} tool cards)`,
        loads.map((l) => l.pageDrawnMs),
        'ms',
      ),
      measured(
        SECTION,
        'scrolled back to the first message, all 100 tool cards drawn',
        loads.map((l) => l.readBackMs),
        'ms',
      ),
      single(SECTION, 'the page as sent: HTML with its server-rendered payload', html.length / 1024, 'KB'),
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
