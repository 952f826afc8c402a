// `npm run bench`: the engine's figures side by side with its peers (issue 12), in one run, no
// network: a scripted Anthropic-compatible model and fixture MCP servers on 127.0.0.1. Prints one
// table and writes it as JSON to bench-results/bench.json. The sections live in bench/; the
// through-the-app part (bench/app/index.ts, when present) adds its rows to the same report.
//
//   BENCH_ROUNDS=100       interleaved rounds of the turn comparison (default 100; the issue measured 300)
//   BENCH_DATABASE_URL=…   also run the engine on Postgres (in a database of its own, dropped after)
//   BENCH_REDIS_URL=…      the bus section's Redis (default REDIS_URL; without either, the database's bus alone)
//   BENCH_ONLY=turn,…      only these sections (turn, roundtrip, parallel, catalog, eventlog, bus, toolsearch, gateway)
//   BENCH_APP=0            skip the through-the-app part
import { existsSync } from 'node:fs';
import path from 'node:path';

import { busFigures } from '@/bench/bus';
import { catalogFigures } from '@/bench/catalog';
import { openBenchDbs } from '@/bench/databases';
import { engineTurnFigures } from '@/bench/engine-turn';
import { eventLogFigures } from '@/bench/event-log';
import { gatewayFigures } from '@/bench/gateway';
import { startBenchModel } from '@/bench/model-script';
import { parallelFigures } from '@/bench/parallel';
import { createReport, machineInfo, renderTable, writeReport, type BenchReport } from '@/bench/report';
import { toolRoundTripFigures } from '@/bench/tool-roundtrip';
import { toolSearchFigures } from '@/bench/tool-search';

// Thousands of turns by one user, back to back, and hundreds of /mcp calls by one token a minute: far past a
// person's messages per minute, turns per hour, model tokens per day and a client's calls per minute (lib/limits.ts).
// An operator's own SWITCHBOARD_LIMITS still wins.
process.env.SWITCHBOARD_LIMITS ??= JSON.stringify({
  messagesPerMinute: 1e9,
  runsPerHour: 1e9,
  modelTokensPerDay: 1e15,
  mcpCallsPerMinute: 1e9,
});

const settings = {
  rounds: Number(process.env.BENCH_ROUNDS ?? 100),
  warmup: Number(process.env.BENCH_WARMUP ?? 20),
  only: process.env.BENCH_ONLY?.split(',').map((s) => s.trim()),
  postgres: Boolean(process.env.BENCH_DATABASE_URL),
  app: process.env.BENCH_APP !== '0',
};
const wanted = (section: string) => !settings.only || settings.only.includes(section);
const startedAt = new Date();
const elapsed = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(0)} s`;

const report = createReport();
const dbs = await openBenchDbs(process.env.BENCH_DATABASE_URL);
const machine = machineInfo(dbs.map((d) => d.version));
const model = await startBenchModel();
console.log(
  `Switchboard bench — ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, ` +
    `load ${machine.loadAtStart.toFixed(2)} at start; ${machine.databases.join(' and ')}\n`,
);

async function section(name: string, run: () => Promise<void>) {
  if (!wanted(name)) return;
  const t0 = performance.now();
  process.stdout.write(`${name}…`);
  await run();
  console.log(` ${elapsed(t0)}`);
}

try {
  await section('turn', () =>
    engineTurnFigures(report, dbs, model, model.client, {
      rounds: settings.rounds,
      warmup: settings.warmup,
      onRound: (n) => n % 50 === 0 && process.stdout.write(` ${n}`),
    }),
  );
  await section('roundtrip', () => toolRoundTripFigures(report, dbs[0]!));
  await section('parallel', () => parallelFigures(report, dbs));
  await section('catalog', () => catalogFigures(report, dbs[0]!, model));
  await section('eventlog', () => eventLogFigures(report, dbs));
  await section('bus', () => busFigures(report, dbs));
  await section('toolsearch', () => toolSearchFigures(report, dbs[0]!));
  await section('gateway', () => gatewayFigures(report, dbs));
  if (settings.app && wanted('app')) await runAppPart(report);

  const rss = process.memoryUsage();
  report.add(
    { section: 'memory', figure: 'bench process rss at the end', value: Math.round(rss.rss / 2 ** 20), unit: 'MB' },
    { section: 'memory', figure: 'bench process heap used at the end', value: Math.round(rss.heapUsed / 2 ** 20), unit: 'MB' },
  );
  console.log(`\n${renderTable(report.rows)}\n`);
  for (const n of report.notes) console.log(`- ${n.section}: ${n.text}`);
  const file = writeReport(report, { machine, startedAt, settings });
  console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
} finally {
  await model.close();
  for (const db of dbs) await db.close();
}
process.exit(0);

/**
 * The through-the-app part (another module's: bench/app/index.ts exports `runAppBench(report)`),
 * run when the file exists and BENCH_APP is not 0. Looked up by path so this entry compiles
 * before that module exists.
 */
async function runAppPart(into: BenchReport): Promise<void> {
  const file = path.join(import.meta.dirname, '..', 'bench', 'app', 'index.ts');
  if (!existsSync(file)) return;
  const t0 = performance.now();
  process.stdout.write('app…');
  const mod = (await import(file)) as { runAppBench?: (report: BenchReport) => Promise<void> };
  if (typeof mod.runAppBench !== 'function') throw new Error('bench/app/index.ts does not export runAppBench(report)');
  await mod.runAppBench(into);
  console.log(` ${elapsed(t0)}`);
}
