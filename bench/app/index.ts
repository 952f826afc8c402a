import type { BenchReport } from '@/bench/report';

import { ensureAppBuild } from './build';
import { load, LOAD_LIMITS } from './load';
import { memory } from './memory';
import { pageBench } from './page';
import { BENCH_DIST_DIR, type BenchDatabase } from './server';
import { throughApp } from './through-app';

/**
 * The through-the-app part of `npm run bench` (scripts/bench.ts calls it): `next start` on a
 * production build in BENCH_NEXT_DIST_DIR (default .next-appbench; made first when it is missing
 * or of other code, ./build.ts), the bench model and the
 * bench's own users. Postgres runs when BENCH_DATABASE_URL is set (each app gets a database of
 * its own on that server, dropped after). Ports BENCH_APP_PORT (default 3231) and the next one.
 *
 *   BENCH_APP_ONLY=through,load,page,memory   only these parts
 *   BENCH_APP_BUILD=0                         measure the build in BENCH_NEXT_DIST_DIR as it is (e.g. one of an
 *                                             earlier commit, for a before/after pair) instead of building this source
 *   BENCH_APP_DATABASES=postgres              only these of the databases (pglite, and postgres with BENCH_DATABASE_URL)
 *   BENCH_APP_TURNS=40                        turns of each kind through the app
 *   BENCH_LOAD_LEVELS=50,100,200              conversations at once
 *   BENCH_LOAD_TURNS=3                        turns each conversation makes at every level
 *   BENCH_LOAD_WORD_DELAY_MS=5                pause between the model's streamed words under load
 *   BENCH_MEMORY_TURNS=1000                   turns before the memory figure
 *   BENCH_PAGE_LOADS=5                        cold loads of the long conversation
 */

const env = process.env;
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);

export async function runAppBench(report: BenchReport): Promise<void> {
  const only = env.BENCH_APP_ONLY?.split(',').map((s) => s.trim());
  const wanted = (part: string) => !only || only.includes(part);
  const port = num('BENCH_APP_PORT', 3231);
  const onlyDatabases = env.BENCH_APP_DATABASES?.split(',').map((s) => s.trim());
  const databases = (env.BENCH_DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const)).filter(
    (d): d is BenchDatabase => !onlyDatabases || onlyDatabases.includes(d),
  );
  if (env.BENCH_DATABASE_URL) env.BENCH_POSTGRES_URL ??= env.BENCH_DATABASE_URL;
  const step = (what: string) => process.stderr.write(`\n  app: ${what}…`);
  // A part that fails is said in the report's notes; the other parts still run.
  const part = async (section: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      report.note(section, `FAILED: ${(err as Error).message}`);
      console.error(err);
    }
  };
  const note = (section: string, text: string) => report.note(section, text);

  step('build');
  try {
    if (env.BENCH_APP_BUILD !== '0') await ensureAppBuild((line) => process.stderr.write(`\n  app: ${line}`));
  } catch (err) {
    // Every part needs the build: each says so, none runs.
    for (const section of ['Through the app', 'Load', 'Page', 'Memory'])
      report.note(section, `FAILED: ${(err as Error).message.split('\n')[0]}`);
    console.error(err);
    return;
  }

  if (wanted('through')) {
    for (const database of databases) {
      step(`through the app on ${database}`);
      await part('Through the app', async () => report.add(...(await throughApp({ database, port, turns: num('BENCH_APP_TURNS', 40) }))));
    }
    note('Through the app', `next start (${BENCH_DIST_DIR}) over HTTP and SSE, one turn at a time; the bench model answers at once.`);
  }
  if (wanted('load')) {
    const levels = (env.BENCH_LOAD_LEVELS ?? '50,100,200').split(',').map(Number);
    for (const database of databases) {
      step(`load on ${database}`);
      const settings = { database, port, levels, turnsEach: num('BENCH_LOAD_TURNS', 3), wordDelayMs: num('BENCH_LOAD_WORD_DELAY_MS', 5) };
      await part('Load', async () => report.add(...(await load(settings))));
    }
    note('Load', `users written by the bench; SWITCHBOARD_LIMITS raised for the run: ${Object.keys(LOAD_LIMITS).join(', ')}.`);
  }
  if (wanted('page')) {
    step('page');
    await part('Page', async () => report.add(...(await pageBench({ port, loads: num('BENCH_PAGE_LOADS', 5) }))));
  }
  if (wanted('memory')) {
    step('memory');
    await part('Memory', async () => report.add(...(await memory({ port, turns: num('BENCH_MEMORY_TURNS', 1000), conversations: 10 }))));
  }
}
