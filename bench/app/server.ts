import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { openPglite, openPostgres, type DbHandle } from '@/db/connection';
import { ensurePrivateDir } from '@/db/private-files';
import type { Limits } from '@/lib/limits';
import { adminQuery, withDatabase } from '@/test/pg-admin';

import { startBenchModel, type BenchModel, type ModelShape } from './model';
import { createBenchUsers, type BenchUser } from './users';

/**
 * Starts the built app (`next start` on a production build, NEXT_DIST_DIR) on a database of its
 * own — a fresh PGlite data folder, or a fresh database on a Postgres server — with the bench's
 * users already in it, and the bench model (./model.ts) or the offline demo model behind it.
 */

export type BenchDatabase = 'pglite' | 'postgres';

export interface AppOptions {
  database: BenchDatabase;
  port: number;
  /** The bench model's shape, or `demo` for the app's offline demo model (DEMO_MODEL_DELAY_MS=0). */
  model: ModelShape | 'demo';
  users: number;
  /** SWITCHBOARD_LIMITS for the run (lib/limits.ts). */
  limits?: Partial<Limits>;
  /** More environment for the server. */
  env?: Record<string, string>;
  /** More arguments for `next start` (e.g. `--experimental-cpu-prof`: a CPU profile in .next-profiles/ when it stops). */
  nextArgs?: string[];
  /**
   * PGlite only: this data folder instead of a fresh one, kept when the app stops (a restart on
   * the same database). With `users: 0` the bench does not open it, so a new folder is created
   * by the app itself, as on a first `npm start`.
   */
  pgliteDir?: string;
}

export interface RunningApp {
  origin: string;
  /** The process `next start` runs as (its children, if any, count in `memory`). */
  pid: number;
  database: BenchDatabase;
  /** The app's own database on the Postgres server; null on PGlite. */
  databaseUrl: string | null;
  users: BenchUser[];
  model: BenchModel | null;
  metricsToken: string;
  /** The `next start` process and its children, as the kernel counts them. */
  memory(): Promise<{ rssMb: number; hwmMb: number }>;
  /** GET /api/metrics, parsed into `name{labels}` → value. */
  metrics(): Promise<Map<string, number>>;
  stop(): Promise<void>;
}

export const BENCH_DIST_DIR = process.env.BENCH_NEXT_DIST_DIR ?? '.next-appbench';
const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let databases = 0;

// One secret and one pair of keys for the whole bench run: a data folder started again keeps
// working (its sealed secrets and audit chain stay readable), and the bench seals its cookies
// with the same AUTH_SECRET as the app.
const SECRET = randomBytes(32).toString('base64url');
const SECRETS_KEY = randomBytes(32).toString('base64');
const AUDIT_KEY = randomBytes(32).toString('base64');

async function prepareDatabase(
  opts: Pick<AppOptions, 'database' | 'users' | 'pgliteDir'>,
): Promise<{ env: Record<string, string>; users: BenchUser[]; drop: () => Promise<void> }> {
  const tag = `${process.pid}-${++databases}`;
  let handle: DbHandle;
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  if (opts.database === 'pglite') {
    const dataDir = opts.pgliteDir ?? (await mkdtemp(path.join(os.tmpdir(), 'switchboard-appbench-')));
    env = { SWITCHBOARD_DATA_DIR: dataDir, DATABASE_URL: '' };
    drop = opts.pgliteDir ? async () => {} : () => rm(dataDir, { recursive: true, force: true });
    if (opts.users === 0) return { env, users: [], drop };
    await ensurePrivateDir(dataDir);
    // Where lib/server/database.ts opens it: <SWITCHBOARD_DATA_DIR>/pglite. One process at a
    // time may hold it, so the bench writes its users and closes it before the app starts.
    handle = await openPglite({ dataDir: path.join(dataDir, 'pglite') });
  } else {
    const name = `sb_appbench_${tag.replace(/\W/g, '_')}`;
    await adminQuery(POSTGRES_ADMIN_URL, `create database ${name}`);
    const url = withDatabase(POSTGRES_ADMIN_URL, name);
    handle = await openPostgres(url);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'switchboard-appbench-'));
    env = { DATABASE_URL: url, SWITCHBOARD_DATA_DIR: dataDir };
    drop = async () => {
      await adminQuery(POSTGRES_ADMIN_URL, `drop database if exists ${name} with (force)`);
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  try {
    await handle.migrate();
    const created = await createBenchUsers(handle.db, SECRET, opts.users, tag);
    return { env, users: created, drop };
  } finally {
    await handle.close();
  }
}

/** Every process whose parent chain reaches `root` (next start may run its server in a child). */
export async function processTree(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …; comm may hold spaces, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  const tree = [root];
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (tree.includes(ppid) && !tree.includes(pid)) {
        tree.push(pid);
        grew = true;
      }
    }
  }
  return tree;
}

async function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
}

export async function treeMemory(root: number): Promise<{ rssMb: number; hwmMb: number }> {
  let rss = 0;
  let hwm = 0;
  for (const pid of await processTree(root)) {
    rss += await statusKb(pid, 'VmRSS');
    hwm += await statusKb(pid, 'VmHWM');
  }
  return { rssMb: rss / 1024, hwmMb: hwm / 1024 };
}

function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

async function waitUntilReady(origin: string, app: ChildProcess): Promise<void> {
  for (const deadline = Date.now() + 180_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    if (app.exitCode !== null) throw new Error(`next start exited with ${app.exitCode} before it was ready`);
    const ok = await fetch(`${origin}/api/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
  }
  throw new Error(`the app did not become ready on ${origin} within three minutes`);
}

export async function startApp(opts: AppOptions): Promise<RunningApp> {
  if (!existsSync(path.join(process.cwd(), BENCH_DIST_DIR, 'BUILD_ID'))) {
    throw new Error(`no production build in ${BENCH_DIST_DIR}: ensureAppBuild (./build.ts) makes it`);
  }
  const origin = `http://127.0.0.1:${opts.port}`;
  // Something already answering there (an app left by a crashed run) would be measured instead.
  if (
    await fetch(`${origin}/api/health`).then(
      () => true,
      () => false,
    )
  )
    throw new Error(`port ${opts.port} is in use`);
  const metricsToken = randomBytes(16).toString('hex');
  const db = await prepareDatabase(opts);
  const model = opts.model === 'demo' ? null : await startBenchModel(opts.model);
  const app = spawn(
    process.execPath,
    [
      path.join('node_modules', 'next', 'dist', 'bin', 'next'),
      'start',
      '-H',
      '127.0.0.1',
      '-p',
      String(opts.port),
      // As `npm start` runs it (package.json): idle connections kept 65 s, not Node's 5 s.
      '--keepAliveTimeout',
      '65000',
      ...(opts.nextArgs ?? []),
      // e.g. `--experimental-cpu-prof` to see where a part's server time goes (docs/PERFORMANCE.md).
      ...(process.env.BENCH_NEXT_ARGS?.split(' ').filter(Boolean) ?? []),
    ],
    {
      env: {
        ...process.env,
        ...db.env,
        NODE_ENV: 'production',
        NEXT_DIST_DIR: BENCH_DIST_DIR,
        NEXT_TELEMETRY_DISABLED: '1',
        AUTH_SECRET: SECRET,
        SECRETS_KEY,
        AUDIT_KEY,
        AUTH_URL: '',
        APP_URL: '',
        METRICS_TOKEN: metricsToken,
        ANTHROPIC_BASE_URL: model?.url ?? '',
        ANTHROPIC_API_KEY: model ? 'bench-key' : '',
        // Not a model the SDK warns about on every call.
        ANTHROPIC_MODEL: model ? 'claude-bench' : '',
        DEMO_MODEL_DELAY_MS: '0',
        SWITCHBOARD_LIMITS: JSON.stringify(opts.limits ?? {}),
        ...opts.env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true,
    },
  );
  const exited = new Promise<void>((resolve) => app.once('exit', () => resolve()));
  // The app runs in its own process group: if the bench dies, it must not live on.
  const orphaned = () => app.pid && app.exitCode === null && process.kill(-app.pid, 'SIGKILL');
  process.once('exit', orphaned);
  const stop = async () => {
    if (app.exitCode === null && app.pid) {
      process.kill(-app.pid, 'SIGTERM');
      const killer = setTimeout(() => app.pid && process.kill(-app.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    process.off('exit', orphaned);
    await model?.close();
    await db.drop();
  };
  try {
    await waitUntilReady(origin, app);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    origin,
    pid: app.pid!,
    database: opts.database,
    databaseUrl: db.env.DATABASE_URL || null,
    users: db.users,
    model,
    metricsToken,
    memory: () => treeMemory(app.pid!),
    async metrics() {
      const res = await fetch(`${origin}/api/metrics`, { headers: { Authorization: `Bearer ${metricsToken}` } });
      if (!res.ok) throw new Error(`GET /api/metrics: ${res.status}`);
      return parseMetrics(await res.text());
    },
    stop,
  };
}
