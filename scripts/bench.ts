// `npm run bench`: figures for the run engine, from plain Node (no Next.js): turn latency with
// the demo model and with a built-in tool call, the first request with 300 tools with and without
// tool search, event log append rate, SSE replay speed, and memory. PGlite in memory by default;
// BENCH_DATABASE_URL points it at a Postgres server instead.
import { randomUUID } from 'node:crypto';

import { openPglite, openPostgres, type DbHandle } from '../db/connection';
import { createConversation } from '../db/queries/conversations';
import { appendEvent } from '../db/queries/events';
import { getRun } from '../db/queries/runs';
import { createUser } from '../db/queries/users';
import { trackedSchedule, type EngineDeps } from '../lib/agent/deps';
import { startRun } from '../lib/agent/engine';
import { openEventStream } from '../lib/agent/sse';
import { createModelClient } from '../lib/model/client';
import { buildEngineDeps } from '../lib/server/engine-deps';
import { createAppToolHost } from '../lib/server/tool-host';
import { toolSearchFigures } from './bench-tool-search';

const TURNS = Number(process.env.BENCH_TURNS ?? 40);
// One user sends 3 × TURNS turns back to back: far past a person's messages per minute, turns per
// hour and model tokens per day (lib/limits.ts). An operator's own SWITCHBOARD_LIMITS still wins.
process.env.SWITCHBOARD_LIMITS ??= JSON.stringify({ messagesPerMinute: 1_000_000, runsPerHour: 1_000_000, modelTokensPerDay: 1e12 });

function stats(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  return (
    `mean ${mean.toFixed(1)} ms · p50 ${pick(0.5).toFixed(1)} · p95 ${pick(0.95).toFixed(1)} · max ${sorted.at(-1)!.toFixed(1)} ` +
    `(n=${ms.length})`
  );
}

async function openDb(): Promise<DbHandle> {
  const url = process.env.BENCH_DATABASE_URL;
  const handle = url ? await openPostgres(url) : await openPglite();
  await handle.migrate();
  return handle;
}

async function timedTurns(deps: EngineDeps & { drain(): Promise<void> }, userId: string, text: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const conversation = await createConversation(deps.db, { userId, model: 'demo' });
    const t0 = performance.now();
    const { run } = await startRun(deps, { conversationId: conversation.id, userId, sessionId: null, text });
    await deps.drain();
    const done = await getRun(deps.db, run.id);
    if (done?.status !== 'completed') throw new Error(`turn ${i} ended ${done?.status}: ${JSON.stringify(done?.error)}`);
    out.push(performance.now() - t0);
  }
  return out;
}

const handle = await openDb();
const rssStart = process.memoryUsage().rss;
const work = trackedSchedule();
const deps = {
  ...buildEngineDeps(handle, {
    role: 'bench',
    schedule: work.schedule,
    tools: null,
    model: { client: createModelClient({ DEMO_MODEL_DELAY_MS: '0' }), model: 'demo' },
  }),
  drain: work.idle,
};
const user = (await createUser(handle.db, { email: `bench-${randomUUID()}@example.test`, passwordHash: 'x' }))!;

console.log(`Switchboard engine benchmark — ${handle.kind}, ${TURNS} turns each\n`);
console.log(`text turn (demo model, no tools):       ${stats(await timedTurns(deps, user.id, 'Hello there, how are you today?'))}`);
const withTools = { ...deps, tools: createAppToolHost(handle.db) };
console.log(`text turn, built-in tools on by default: ${stats(await timedTurns(withTools, user.id, 'Hello there, how are you today?'))}`);
console.log(
  `turn with one auto-approved tool call:   ${stats(await timedTurns(withTools, user.id, 'call notes__search {"query": "plans"}'))}`,
);

await toolSearchFigures(deps, handle, Math.min(TURNS, 10), stats);

const conversation = await createConversation(handle.db, { userId: user.id, model: 'demo' });
const EVENTS = 5000;
let t0 = performance.now();
for (let i = 0; i < EVENTS; i++) {
  await appendEvent(handle.db, {
    conversationId: conversation.id,
    runId: null,
    type: 'message.delta',
    data: { messageId: 'm', blockIndex: 0, offset: i * 20, text: 'twenty characters..!' },
  });
}
let ms = performance.now() - t0;
console.log(
  `event log append:                       ${(EVENTS / (ms / 1000)).toFixed(0)} events/s (${EVENTS} sequential appends in ` +
    `${ms.toFixed(0)} ms)`,
);

t0 = performance.now();
const stream = await openEventStream({ db: handle.db, bus: deps.bus, conversationId: conversation.id, afterSeq: 0 });
const bytes = (await new Response(stream!).arrayBuffer()).byteLength;
ms = performance.now() - t0;
console.log(`SSE replay of ${EVENTS} events:              ${ms.toFixed(0)} ms (${(bytes / 1024).toFixed(0)} KB)`);

const rssEnd = process.memoryUsage().rss;
console.log(
  `memory: rss ${(rssStart / 2 ** 20).toFixed(0)} MB at start → ${(rssEnd / 2 ** 20).toFixed(0)} MB at end; heap used ` +
    `${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
);
await handle.close();
process.exit(0);
