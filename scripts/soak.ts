// `npm run soak` (not in CI): mixed traffic against one `next start` for a while, sampling the
// server's resident memory, its open file descriptors and Node's active handles, to show they
// stay flat. Runs a production build in BENCH_NEXT_DIST_DIR (default .next-appbench), made first
// when it is missing or of other code (bench/app/build.ts). Writes bench-results/soak.json.
//
//   SOAK_MINUTES=30           how long the traffic runs (default 30)
//   SOAK_CONVERSATIONS=8      conversations sending at once
//   SOAK_DATABASE_URL=…       a Postgres server to run on (a database of its own, dropped after); PGlite by default
//   SOAK_PORT=3232
//
// The traffic, per conversation, in a loop: a turn with a notes__search call (45 %), a plain
// turn (35 %), a turn whose event stream the client drops halfway and then follows again from
// where it was (10 %), a turn stopped while it streams (5 %), a new conversation (5 %); and, every
// few seconds, the list of conversations and a conversation's view.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { ensureAppBuild } from '@/bench/app/build';
import { createConversation, turn } from '@/bench/app/client';
import { LOAD_LIMITS } from '@/bench/app/load';
import { startApp, type RunningApp } from '@/bench/app/server';
import type { BenchUser } from '@/bench/app/users';

const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const conversations = Number(process.env.SOAK_CONVERSATIONS ?? 8);
const port = Number(process.env.SOAK_PORT ?? 3232);
if (process.env.SOAK_DATABASE_URL) process.env.BENCH_POSTGRES_URL = process.env.SOAK_DATABASE_URL;
const SAMPLE_MS = 10_000;

interface Sample {
  atS: number;
  rssMb: number;
  fds: number;
  handles: number;
  turns: number;
}

const counts = { turns: 0, dropped: 0, stopped: 0, errors: 0 };
const errors = new Map<string, number>();

function failed(err: unknown) {
  counts.errors++;
  const key = (err as Error).message.slice(0, 120);
  errors.set(key, (errors.get(key) ?? 0) + 1);
}

const headers = (app: RunningApp, user: BenchUser) => ({ 'Content-Type': 'application/json', Origin: app.origin, Cookie: user.cookie });

/** Sends a turn, reads its stream halfway, drops it, then follows it again from the last seq seen. */
async function droppedStream(app: RunningApp, user: BenchUser, id: string, text: string) {
  const posted = await fetch(`${app.origin}/api/conversations/${id}/messages`, {
    method: 'POST',
    headers: headers(app, user),
    body: JSON.stringify({ text }),
  });
  if (posted.status !== 202) throw new Error(`POST …/messages: ${posted.status}`);
  const { afterSeq } = (await posted.json()) as { afterSeq: number };
  const ctl = new AbortController();
  const res = await fetch(`${app.origin}/api/conversations/${id}/events?after=${afterSeq}`, {
    headers: { Cookie: user.cookie },
    signal: ctl.signal,
  });
  const reader = res.body!.getReader();
  let seen = afterSeq;
  const { value } = await reader.read();
  for (const m of new TextDecoder().decode(value).matchAll(/^id: (\d+)$/gm)) seen = Number(m[1]);
  ctl.abort();
  await reader.cancel().catch(() => {});
  // Follow again from where it was, to the end.
  const again = await fetch(`${app.origin}/api/conversations/${id}/events?after=${seen}`, { headers: { Cookie: user.cookie } });
  if (again.status === 200) await again.text();
  counts.dropped++;
}

/** Sends a turn and presses Stop once its first delta is out; the stream ends with run.cancelled (or completed, if it was quicker). */
async function stoppedTurn(app: RunningApp, user: BenchUser, id: string, text: string) {
  const posted = await fetch(`${app.origin}/api/conversations/${id}/messages`, {
    method: 'POST',
    headers: headers(app, user),
    body: JSON.stringify({ text }),
  });
  if (posted.status !== 202) throw new Error(`POST …/messages: ${posted.status}`);
  const { afterSeq } = (await posted.json()) as { afterSeq: number };
  const res = await fetch(`${app.origin}/api/conversations/${id}/events?after=${afterSeq}`, { headers: { Cookie: user.cookie } });
  const reader = res.body!.getReader();
  await reader.read();
  const stop = await fetch(`${app.origin}/api/conversations/${id}/cancel`, { method: 'POST', headers: headers(app, user), body: '{}' });
  // 409: the turn had already ended (the model is quick); anything else is a failure.
  if (stop.status !== 202 && stop.status !== 409) throw new Error(`POST …/cancel: ${stop.status}`);
  while (!(await reader.read()).done);
  counts.stopped++;
}

async function worker(app: RunningApp, user: BenchUser, until: number) {
  let id = await createConversation(app.origin, user, 'Soak');
  let lastRead = Date.now();
  while (Date.now() < until) {
    const r = Math.random();
    const turnId = randomUUID().slice(0, 8);
    try {
      if (r < 0.45) await turn(app.origin, user, id, `Look in my notes. [bench:${turnId}:tool]`);
      else if (r < 0.8) await turn(app.origin, user, id, `Tell me something. [bench:${turnId}:plain]`);
      else if (r < 0.9) await droppedStream(app, user, id, `Tell me more. [bench:${turnId}:plain]`);
      else if (r < 0.95) await stoppedTurn(app, user, id, `A long answer, please. [bench:${turnId}:tool]`);
      else id = await createConversation(app.origin, user, 'Soak');
      if (r < 0.8) counts.turns++;
      if (Date.now() - lastRead > 5_000) {
        lastRead = Date.now();
        for (const url of ['/api/conversations', `/api/conversations/${id}`]) {
          const res = await fetch(`${app.origin}${url}`, { headers: { Cookie: user.cookie } });
          if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
          await res.arrayBuffer();
        }
      }
    } catch (err) {
      failed(err);
      // A conversation left with an active run (a failed stop) would 409 every later turn.
      id = await createConversation(app.origin, user, 'Soak').catch(() => id);
    } finally {
      app.model!.forget(turnId);
    }
  }
}

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

async function sample(app: RunningApp, t0: number): Promise<Sample> {
  const metrics = await app.metrics();
  return {
    atS: Math.round((Date.now() - t0) / 1000),
    rssMb: Math.round((await app.memory()).rssMb),
    fds: openFds(app.pid),
    handles: metrics.get('nodejs_active_handles_total') ?? Number.NaN,
    turns: counts.turns,
  };
}

/** The median of a field over a slice of the samples. */
function medianOf(samples: Sample[], field: 'rssMb' | 'fds' | 'handles'): number {
  const values = samples.map((s) => s[field]).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)] ?? Number.NaN;
}

async function main() {
  await ensureAppBuild((line) => console.log(line));
  const app = await startApp({
    database: process.env.SOAK_DATABASE_URL ? 'postgres' : 'pglite',
    port,
    // ~100 streamed words per answer, at 2 ms a word: turns of a few hundred ms, many per minute.
    model: { answerWords: 100, leadWords: 10, wordDelayMs: 2 },
    users: conversations,
    limits: LOAD_LIMITS,
  });
  const samples: Sample[] = [];
  try {
    const t0 = Date.now();
    const until = t0 + minutes * 60_000;
    console.log(`soak: ${minutes} min, ${conversations} conversations, ${app.database}, ${app.origin}`);
    const timer = setInterval(() => {
      void sample(app, t0).then((s) => {
        samples.push(s);
        console.log(`  ${s.atS} s: rss ${s.rssMb} MB, fds ${s.fds}, handles ${s.handles}, turns ${s.turns}, errors ${counts.errors}`);
      });
    }, SAMPLE_MS);
    await Promise.all(app.users.map((u) => worker(app, u, until)));
    clearInterval(timer);
    // The traffic is over: what is still held now, after a pause, is what would accumulate.
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    samples.push(await sample(app, t0));

    // Flat: the last quarter against the second quarter (the first is warm-up: JIT, caches, pools).
    const q = Math.max(1, Math.floor(samples.length / 4));
    const early = samples.slice(q, 2 * q);
    const late = samples.slice(-q);
    const growth = {
      rssMb: medianOf(late, 'rssMb') - medianOf(early, 'rssMb'),
      fds: medianOf(late, 'fds') - medianOf(early, 'fds'),
      handles: medianOf(late, 'handles') - medianOf(early, 'handles'),
    };
    const flat = growth.rssMb <= 0.1 * medianOf(early, 'rssMb') && growth.fds <= 10 && growth.handles <= 10;
    const summary = { minutes, conversations, database: app.database, counts, errors: Object.fromEntries(errors), growth, flat, samples };
    mkdirSync(path.join(process.cwd(), 'bench-results'), { recursive: true });
    writeFileSync(path.join(process.cwd(), 'bench-results', 'soak.json'), `${JSON.stringify(summary, null, 2)}\n`);
    const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));
    console.log(
      `\nsoak: ${counts.turns} turns, ${counts.dropped} dropped and followed again, ${counts.stopped} stopped, ${counts.errors} errors; ` +
        `second quarter → last quarter: rss ${signed(growth.rssMb)} MB, fds ${signed(growth.fds)}, handles ${signed(growth.handles)}: ` +
        (flat ? 'flat' : 'NOT flat'),
    );
    for (const [message, n] of errors) console.log(`  error ×${n}: ${message}`);
    process.exitCode = flat && counts.errors === 0 ? 0 : 1;
  } finally {
    await app.stop();
  }
}

main().then(
  () => process.exit(),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
