import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { createConversation, turn } from './client';
import { LOAD_LIMITS } from './load';
import { single as row, type BenchRow } from './rows';
import { startApp, type RunningApp } from './server';

/**
 * The embedded default's memory: `next start` on PGlite with the offline demo model, as
 * `npm start` runs with nothing configured. The resident size of the server (the kernel's
 * VmRSS of the process and its children) idle after a first start on an empty data folder (the
 * app creates the database), idle after a restart on it, right after `turns` turns (half of them
 * with a `notes__search` call, `conversations` conversations at a time), and idle again a little
 * later; VmHWM is the most it ever held.
 */

export interface MemoryOptions {
  port: number;
  turns: number;
  conversations: number;
}

const SECTION = 'Memory';
const IDLE_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function idleRss(app: RunningApp): Promise<number> {
  await sleep(IDLE_MS);
  return (await app.memory()).rssMb;
}

export async function memory(opts: MemoryOptions): Promise<BenchRow[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-appbench-mem-'));
  const rows: BenchRow[] = [];
  try {
    const first = await startApp({ database: 'pglite', port: opts.port, model: 'demo', users: 0, pgliteDir: dir });
    try {
      rows.push(row(SECTION, 'first start on an empty data folder, idle', await idleRss(first), 'MB'));
      rows.push(row(SECTION, 'first start, most held (VmHWM)', (await first.memory()).hwmMb, 'MB'));
    } finally {
      await first.stop();
    }

    const app = await startApp({
      database: 'pglite',
      port: opts.port,
      model: 'demo',
      users: opts.conversations,
      pgliteDir: dir,
      limits: LOAD_LIMITS,
    });
    try {
      rows.push(row(SECTION, 'restart on the same data folder, idle', await idleRss(app), 'MB'));
      const conversations = await Promise.all(
        app.users.map(async (u, i) => ({ user: u, id: await createConversation(app.origin, u, `Memory ${i}`) })),
      );
      let sent = 0;
      const t0 = performance.now();
      await Promise.all(
        conversations.map(async (c) => {
          while (sent < opts.turns) {
            const n = sent++;
            const text = n % 2 === 0 ? `call notes__search {"query": "turn ${n}"}` : `Turn ${n}: a question, answered in a few words.`;
            await turn(app.origin, c.user, c.id, text);
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      rows.push(row(SECTION, `right after ${opts.turns} turns`, (await app.memory()).rssMb, 'MB'));
      rows.push(row(SECTION, `${opts.turns} turns took`, seconds, 's'));
      rows.push(row(SECTION, `idle ${IDLE_MS / 1000} s after the turns`, await idleRss(app), 'MB'));
      rows.push(row(SECTION, 'restart, most held (VmHWM)', (await app.memory()).hwmMb, 'MB'));
    } finally {
      await app.stop();
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
