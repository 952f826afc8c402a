#!/usr/bin/env node
// `npm test`: every suite, one summary line. The type check, the formatter and lint checks, unit and integration
// (vitest, on PGlite and — when DATABASE_URL is set — on Postgres too; the event-bus suites also on Redis, at
// REDIS_URL or a local one that answers), then a production build and e2e in Chromium
// (Playwright against `next start` on the embedded default) and the fault suite (test/faults) on the same build,
// then the first-run e2e against `next dev` from a cold build folder, then the MCP conformance client and server scenarios
// (SKIP_CONFORMANCE=1 skips them). Ends with `N passed, N failed`; each part prints its time.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

const results = [];
/** Names of the tests that failed (and e2e tests that passed only on their retry), printed last so a CI log's tail names them. */
const failures = [];
const flaky = [];
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
mkdirSync('test-results', { recursive: true });

function run(label, cmd, args, opts = {}) {
  const started = Date.now();
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  const res = spawnSync(cmd, args, { stdio: 'inherit', env: opts.env ?? env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`=== ${label} took ${seconds}s (exit ${res.status})`);
  return { status: res.status ?? 1, seconds };
}

/** Like `run`, without waiting: stdout and stderr kept together, in the order they came, for printing later. */
function runCaptured(label, cmd, args) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    const done = (status, extra = '') =>
      resolve({
        label,
        cmd,
        args,
        status,
        output: Buffer.concat(chunks).toString('utf8') + extra,
        seconds: ((Date.now() - started) / 1000).toFixed(1),
      });
    child.on('error', (err) => done(1, `${err.message}\n`));
    child.on('close', (code) => done(code ?? 1));
  });
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

// 0. types, the layer table (.dependency-cruiser.cjs), formatting and lint (the other source rules
// run with vitest below): one check each. The type check is there because vitest and the e2e build strip
// types without checking them: without it a type error passes every other part.
// The four only read the sources and each is mostly one thread: they run side by side on the machine's
// cores, each one's output printed whole, in this order, once all four are done.
const checks = await Promise.all(
  [
    ['types (tsc --noEmit)', 'npx', ['tsc', '--noEmit']],
    [
      'layers (dependency-cruiser)',
      'npx',
      ['depcruise', 'app', 'lib', 'db', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'],
    ],
    ['format (prettier --check)', 'npx', ['prettier', '--check', '--log-level', 'warn', '.']],
    ['lint (eslint)', 'npx', ['eslint', '.']],
  ].map(([label, cmd, args]) => runCaptured(label, cmd, args)),
);
for (const { label, cmd, args, output, status, seconds } of checks) {
  console.log(`\n=== ${label}: ${cmd} ${args.join(' ')}`);
  if (output) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
  console.log(`=== ${label} took ${seconds}s (exit ${status}; run beside the other checks)`);
  results.push({ part: label.split(' ')[0], seconds, passed: status === 0 ? 1 : 0, failed: status === 0 ? 0 : 1, skipped: 0 });
}

// 1. vitest
rmSync('test-results/vitest.json', { force: true });
const unit = run('unit+integration', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  '--outputFile=test-results/vitest.json',
]);
const v = readJson('test-results/vitest.json');
for (const file of v?.testResults ?? []) {
  for (const t of file.assertionResults ?? [])
    if (t.status === 'failed') failures.push(`unit+integration  ${file.name.replace(process.cwd() + '/', '')} > ${t.fullName}`);
  if (file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'))
    failures.push(`unit+integration  ${file.name.replace(process.cwd() + '/', '')}: ${(file.message ?? 'failed to run').split('\n')[0]}`);
}
results.push({
  part: 'unit+integration',
  seconds: unit.seconds,
  passed: v?.numPassedTests ?? 0,
  failed: v ? v.numFailedTests + (unit.status !== 0 && v.numFailedTests === 0 ? 1 : 0) : 1,
  skipped: (v?.numPendingTests ?? 0) + (v?.numTodoTests ?? 0),
});

function playwright(part, args, resultsFile, env) {
  rmSync(resultsFile, { force: true });
  const res = run(part, 'npx', ['playwright', 'test', ...args], { env });
  const report = readJson(resultsFile);
  const s = report?.stats;
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? [])
      for (const t of spec.tests ?? []) {
        const name = `${part}  ${spec.file}:${spec.line} > ${[...titles, spec.title].join(' > ')}`;
        if (t.status === 'unexpected') failures.push(name);
        if (t.status === 'flaky') flaky.push(name);
      }
    for (const child of suite.suites ?? []) walk(child, suite.title && !suite.title.endsWith('.ts') ? [...titles, suite.title] : titles);
  };
  for (const suite of report?.suites ?? []) walk(suite, []);
  for (const e of report?.errors ?? []) failures.push(`${part}  ${(e.message ?? String(e)).split('\n')[0]}`);
  results.push({
    part,
    seconds: res.seconds,
    passed: (s?.expected ?? 0) + (s?.flaky ?? 0),
    failed: s ? s.unexpected + (res.status !== 0 && s.unexpected === 0 ? 1 : 0) : 1,
    skipped: s?.skipped ?? 0,
  });
}

// 2b. the load and fault suite (test/faults, vitest.faults.config.ts) against `next start` processes
// from the same build: two instances on the Postgres at DATABASE_URL (skipped without it), kills,
// bad MCP and model peers. SKIP_FAULTS=1 skips it.
function faults() {
  if (process.env.SKIP_FAULTS === '1') return console.log('\n=== faults skipped (SKIP_FAULTS=1)');
  const file = 'test-results/faults.json';
  rmSync(file, { force: true });
  // The database's own bus: REDIS_URL is for the Redis bus's own suites (lib/agent/bus.test.ts).
  const faultsEnv = { ...env };
  delete faultsEnv.REDIS_URL;
  const res = run(
    'faults',
    'npx',
    ['vitest', 'run', '--config', 'vitest.faults.config.ts', '--reporter=default', '--reporter=json', `--outputFile=${file}`],
    { env: faultsEnv },
  );
  const f = readJson(file);
  for (const t of (f?.testResults ?? []).flatMap((r) => (r.assertionResults ?? []).map((a) => ({ ...a, file: r.name }))))
    if (t.status === 'failed') failures.push(`faults  ${t.file.replace(process.cwd() + '/', '')} > ${t.fullName}`);
  for (const r of f?.testResults ?? [])
    if (r.status === 'failed' && !(r.assertionResults ?? []).some((t) => t.status === 'failed'))
      failures.push(`faults  ${r.name.replace(process.cwd() + '/', '')}: ${(r.message ?? 'failed to run').split('\n')[0]}`);
  results.push({
    part: 'faults',
    seconds: res.seconds,
    passed: f?.numPassedTests ?? 0,
    failed: f ? f.numFailedTests + (res.status !== 0 && f.numFailedTests === 0 ? 1 : 0) : 1,
    skipped: (f?.numPendingTests ?? 0) + (f?.numTodoTests ?? 0),
  });
}

// 2. build, then e2e against `next start` (the embedded default: no DATABASE_URL, demo model);
// 3. the first-run path against `next dev` from a cold build folder of its own (no build needed).
if (process.env.SKIP_E2E === '1') {
  console.log('\n=== e2e skipped (SKIP_E2E=1)');
} else {
  const e2eEnv = { ...env };
  for (const k of [
    'DATABASE_URL',
    'REDIS_URL',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
    'AUTH_SECRET',
    'SECRETS_KEY',
    'SECRETS_KEY_PREVIOUS',
    'AUDIT_KEY',
    'AUDIT_KEY_PREVIOUS',
  ])
    delete e2eEnv[k];
  // Without its own type check (step 0 ran tsc) and without writing a build cache nobody reads: next.config.mjs.
  const build = run('build', 'npx', ['next', 'build'], { env: { ...env, SWITCHBOARD_TEST_BUILD: '1' } });
  if (build.status !== 0) {
    results.push({ part: 'build', seconds: build.seconds, passed: 0, failed: 1, skipped: 0 });
  } else {
    playwright('e2e', [], 'test-results/e2e-results.json', e2eEnv);
    faults();
  }
  playwright('e2e first-run (dev)', ['-c', 'playwright.first-run.config.ts'], 'test-results/e2e-first-run-results.json', e2eEnv);
}

// 4. the official MCP conformance scenarios (2025-11-25 and 2026-07-28): the client ones against the
// app's own connection, OAuth and tool-call code, the server ones through the app's own /mcp;
// scripts/test-conformance.mjs keeps to a 15-minute budget and installs its runner
// (tools/conformance, with Node 22) when it is missing. A server scenario /mcp does not pass for a
// stated reason (scripts/conformance-server-expected.mjs) counts as skipped here, named in its table.
if (process.env.SKIP_CONFORMANCE === '1') {
  console.log('\n=== conformance skipped (SKIP_CONFORMANCE=1)');
} else {
  rmSync('test-results/conformance.json', { force: true });
  const conf = run('conformance', process.execPath, ['scripts/test-conformance.mjs']);
  const c = readJson('test-results/conformance.json');
  for (const r of c?.scenarios ?? []) if (!r.ok && !r.skipped) failures.push(`conformance  ${r.scenario} (${r.version})`);
  results.push({
    part: 'conformance',
    seconds: conf.seconds,
    passed: c?.passed ?? 0,
    failed: c ? c.failed + (conf.status !== 0 && c.failed === 0 ? 1 : 0) : 1,
    skipped: (c?.skipped ?? 0) + (c?.expectedFailures ?? 0),
  });
}

if (flaky.length) {
  console.log('\n=== Passed only when retried (flaky: fix these)');
  for (const f of flaky) console.log(`  ${f}`);
}
if (failures.length) {
  console.log('\n=== Failed');
  for (const f of failures) console.log(`  ${f}`);
}
console.log('\n=== Summary');
for (const r of results) {
  console.log(
    `${r.part.padEnd(20)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(3)} failed ` +
      `${String(r.skipped).padStart(3)} skipped  ${r.seconds}s`,
  );
}
const total = results.reduce((a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed, skipped: a.skipped + r.skipped }), {
  passed: 0,
  failed: 0,
  skipped: 0,
});
console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 ? 1 : 0);
