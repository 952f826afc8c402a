import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Switchboard as it runs in production: `next start` from a production build, one process group
 * per instance on 127.0.0.1, killed with SIGKILL when the test says so and always at the end.
 *
 * The build folder is `FAULTS_NEXT_DIST_DIR` (default `.next`, the one `npm test` builds before
 * e2e); a developer builds into a folder of their own and points this at it.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const NEXT_BIN = createRequire(import.meta.url).resolve('next/dist/bin/next');

export const DIST_DIR = process.env.FAULTS_NEXT_DIST_DIR || '.next';

/** Why the suite cannot run, or null: it needs a finished production build. */
export function missingBuild(): string | null {
  return existsSync(path.join(ROOT, DIST_DIR, 'BUILD_ID'))
    ? null
    : `no production build in ${DIST_DIR}/ (run \`npx next build\`, or set FAULTS_NEXT_DIST_DIR to your build folder)`;
}

/** Every instance group still alive in this process: killed on exit, whatever happened. */
const live = new Set<number>();
process.on('exit', () => {
  for (const pid of live) killGroup(pid, 'SIGKILL');
});

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export interface AppProcess {
  name: string;
  port: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** What the instance printed (stdout and stderr), for failure messages. */
  log(): string;
  /** SIGKILL to the whole process group, then waits for the exit. */
  kill(): Promise<void>;
  /** Starts the same instance again (same port and environment) and waits until it is ready. */
  restart(): Promise<void>;
  alive(): boolean;
}

/**
 * Starts `next start -H 127.0.0.1 -p <port>` with exactly `env` over a minimal base (no variable
 * of the test's own environment leaks in: no DATABASE_URL, no API key), waits for `/api/ready`.
 */
export async function startApp(name: string, port: number, env: Record<string, string>, readyMs = 60_000): Promise<AppProcess> {
  let proc: ChildProcess | undefined;
  let output = '';
  let exited: Promise<void> = Promise.resolve();

  const launch = async () => {
    output += `--- ${name} starting on ${port}\n`;
    const child = spawn(process.execPath, [NEXT_BIN, 'start', '-H', '127.0.0.1', '-p', String(port)], {
      cwd: ROOT,
      detached: true, // a group of its own: SIGKILL reaches every process of the instance
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        NEXT_DIST_DIR: DIST_DIR,
        ...env,
      },
    });
    proc = child;
    live.add(child.pid!);
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        live.delete(child.pid!);
        output += `--- ${name} exited (${signal ?? code})\n`;
        resolve();
      }),
    );
    await waitReady();
  };

  const waitReady = async () => {
    const deadline = Date.now() + readyMs;
    for (;;) {
      if (proc?.exitCode !== null || proc?.signalCode !== null) throw new Error(`${name} exited while starting:\n${output}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/ready`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`${name} was not ready after ${readyMs} ms:\n${output}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  };

  const app: AppProcess = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    alive: () => Boolean(proc && proc.exitCode === null && proc.signalCode === null),
    async kill() {
      if (proc?.pid && app.alive()) killGroup(proc.pid, 'SIGKILL');
      await exited;
    },
    async restart() {
      await app.kill();
      await launch();
    },
  };
  await launch();
  return app;
}
