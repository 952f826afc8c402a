import { randomUUID } from 'node:crypto';

import { summarize } from '@/bench/stats';

import { createConversation, turn } from './client';
import { cpuMeter, type CpuMeter } from './cpu';
import type { ModelCall } from './model';
import { measured, single, type BenchRow } from './rows';
import { startApp, type BenchDatabase, type RunningApp } from './server';
import type { BenchUser } from './users';

const p95Of = (values: number[]) => summarize(values).p95;

/**
 * Many conversations at once against one `next start`: each conversation makes `turnsEach`
 * two-step turns back to back (a `notes__search` call, then the answer; ~300 streamed words in
 * all), every conversation starting at the same moment. Figures per level: turns per second,
 * turn time and host time (the turn minus the model's own time) at p50 / p95, errors, database
 * statements per turn (from /api/metrics), CPU ms per turn of the server and (on Postgres) of
 * the database's backends serving it, NOTIFYs per turn (./cpu.ts), the pool's waiting queue and
 * the server's peak RSS.
 *
 * The users are written by the bench (./users.ts), one per `CONVERSATIONS_PER_USER`
 * conversations, and the per-user limits are raised for the run through SWITCHBOARD_LIMITS
 * (`LOAD_LIMITS` below): messages per minute, turns per hour, turns in progress, tokens per day.
 */

export interface LoadOptions {
  database: BenchDatabase;
  port: number;
  levels: number[];
  turnsEach: number;
  /** Pause between the model's streamed words, ms. */
  wordDelayMs: number;
}

const SECTION = 'Load';
const CONVERSATIONS_PER_USER = 4;
const LEAD_WORDS = 20;
const ANSWER_WORDS = 280;
const TURN_TIMEOUT_MS = 120_000;

export const LOAD_LIMITS = {
  messagesPerMinute: 1_000_000,
  runsPerHour: 1_000_000,
  activeRunsPerUser: 1_000,
  modelTokensPerDay: 1e12,
  eventStreamsPerUser: 1_000,
};

interface TurnResult {
  ok: boolean;
  error?: string;
  totalMs: number;
  hostMs: number;
}

function modelMs(calls: ModelCall[]): number {
  return calls.reduce((sum, c) => sum + (c.endedAt - c.receivedAt), 0);
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    work.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no end within ${ms / 1000} s`)), ms))),
  ]);
}

async function conversation(app: RunningApp, user: BenchUser, conversationId: string, turns: number, out: TurnResult[]) {
  for (let i = 0; i < turns; i++) {
    const turnId = randomUUID().slice(0, 8);
    const startedAt = performance.now();
    try {
      const t = await withTimeout(turn(app.origin, user, conversationId, `Find it in my notes. [bench:${turnId}:tool]`), TURN_TIMEOUT_MS);
      const calls = app.model!.callsOf(turnId);
      if (calls.length !== 2) throw new Error(`${calls.length} model calls instead of 2`);
      out.push({ ok: true, totalMs: t.endedAt - t.startedAt, hostMs: t.endedAt - t.startedAt - modelMs(calls) });
    } catch (err) {
      out.push({ ok: false, error: describeError(err).slice(0, 160), totalMs: performance.now() - startedAt, hostMs: Number.NaN });
    } finally {
      app.model!.forget(turnId);
    }
  }
}

const STATEMENTS = 'switchboard_db_statements_total';

async function level(app: RunningApp, meter: CpuMeter, concurrent: number, opts: LoadOptions): Promise<BenchRow[]> {
  const conversations = await Promise.all(
    Array.from({ length: concurrent }, async (_, i) => {
      const user = app.users[Math.floor(i / CONVERSATIONS_PER_USER)]!;
      return { user, id: await createConversation(app.origin, user, `Load ${concurrent} #${i}`) };
    }),
  );
  const before = await app.metrics();
  await meter.take();
  let peakRss = 0;
  let peakWaiting = 0;
  const sampler = setInterval(() => {
    void app.memory().then((m) => (peakRss = Math.max(peakRss, m.rssMb)));
    void app
      .metrics()
      .then((m) => (peakWaiting = Math.max(peakWaiting, m.get(`switchboard_db_pool_waiting{database="${app.database}"}`) ?? 0)))
      .catch(() => {});
  }, 500);
  const results: TurnResult[] = [];
  const t0 = performance.now();
  await Promise.all(conversations.map((c) => conversation(app, c.user, c.id, opts.turnsEach, results)));
  const wallS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const cpu = await meter.take();
  const after = await app.metrics();
  peakRss = Math.max(peakRss, (await app.memory()).rssMb);

  const ok = results.filter((r) => r.ok);
  const errors = results.filter((r) => !r.ok);
  if (errors.length) {
    const kinds = new Map<string, number>();
    for (const e of errors) kinds.set(e.error!, (kinds.get(e.error!) ?? 0) + 1);
    console.error(`  ${app.database} ×${concurrent}: ${errors.length} errors:`, [...kinds].slice(0, 5));
  }
  const statements = before.has(STATEMENTS) ? ((after.get(STATEMENTS) ?? 0) - before.get(STATEMENTS)!) / results.length : Number.NaN;
  const name = `${app.database}, ${concurrent} at once`;
  const gated = app.database === 'postgres' && concurrent === 200;
  return [
    single(SECTION, `${name}: turns per second`, ok.length / wallS, 'turns/s', { n: results.length }),
    measured(
      SECTION,
      `${name}: turn time`,
      ok.map((r) => r.totalMs),
      'ms',
    ),
    {
      ...measured(
        SECTION,
        `${name}: host time (turn − model)`,
        ok.map((r) => r.hostMs),
        'ms',
      ),
      ...(gated ? { target: 'p95 < 250 ms', met: p95Of(ok.map((r) => r.hostMs)) < 250 } : {}),
    },
    single(SECTION, `${name}: errors`, errors.length, 'turns', gated ? { target: '0', met: errors.length === 0 } : {}),
    single(SECTION, `${name}: statements per turn`, statements, 'statements'),
    single(SECTION, `${name}: server CPU per turn`, cpu.serverMs / results.length, 'ms'),
    ...(app.databaseUrl
      ? [
          single(SECTION, `${name}: Postgres CPU per turn (its backends)`, cpu.postgresMs / results.length, 'ms'),
          single(SECTION, `${name}: NOTIFYs per turn`, cpu.notifications / results.length, 'notifications'),
        ]
      : []),
    single(SECTION, `${name}: most queries waiting for a pool connection`, peakWaiting, 'queries'),
    single(SECTION, `${name}: peak RSS of the server`, peakRss, 'MB'),
  ];
}

export async function load(opts: LoadOptions): Promise<BenchRow[]> {
  const most = Math.max(...opts.levels);
  const app = await startApp({
    database: opts.database,
    port: opts.port,
    model: { answerWords: ANSWER_WORDS, leadWords: LEAD_WORDS, wordDelayMs: opts.wordDelayMs },
    users: Math.ceil(most / CONVERSATIONS_PER_USER),
    limits: LOAD_LIMITS,
  });
  const meter = await cpuMeter(app.pid, app.databaseUrl);
  try {
    // Load the routes and warm the JIT before the first level.
    await level(app, meter, 4, { ...opts, turnsEach: 1 });
    const rows: BenchRow[] = [];
    for (const concurrent of opts.levels) {
      const figures = await level(app, meter, concurrent, opts);
      rows.push(...figures);
      // Said as each level ends: a long run that is stopped still leaves what it measured.
      const said = figures.map((f) => `${f.figure} ${Math.round(f.value)}${f.p95 === undefined ? '' : ` (p95 ${Math.round(f.p95)})`}`);
      console.error(`  load: ${said.join('; ')}`);
    }
    if (app.model!.problems.length) throw new Error(`bench model: ${app.model!.problems.slice(0, 3).join('; ')}`);
    return rows;
  } finally {
    await meter.close();
    await app.stop();
  }
}

/** The error with its cause: undici says only "fetch failed" and puts what failed (a reset, a timeout) under `cause`. */
function describeError(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message} (${cause})` : e.message;
}
