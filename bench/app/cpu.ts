import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import pg from 'pg';

import { processTree } from './server';

/*
 * CPU time as the kernel counts it (/proc/<pid>/stat, user + system), for the load bench's
 * "CPU per turn": steady on a shared machine where latency is not, since another process's work
 * delays a turn but is not charged to it.
 */

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU ms a process has used so far; 0 when it is gone (or not ours to read). */
async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return 0;
  // pid (comm) state … utime is field 14, stime 15; comm may hold spaces, so count after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** CPU ms of each process, by pid. */
async function cpuByPid(pids: number[]): Promise<Map<number, number>> {
  return new Map(await Promise.all(pids.map(async (pid) => [pid, await cpuMsOf(pid)] as const)));
}

/** The CPU ms spent between two readings: processes that appeared in between count from 0. */
function spent(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, now] of after) ms += now - (before.get(pid) ?? 0);
  return ms;
}

export interface CpuMeter {
  /** CPU ms since the last `take()` (or since the meter started): the server's and, on Postgres, its backends'. */
  take(): Promise<{ serverMs: number; postgresMs: number; notifications: number }>;
  close(): Promise<void>;
}

/**
 * Meters one running app: the `next start` process tree, and on Postgres the backends serving
 * the app's database (every pooled connection, the notifier and the listener — the server's
 * background processes are shared with whatever else runs on it, and are left out), plus the
 * notifications the app sends on its channel, counted by a listener of the bench's own (whose
 * backend is left out of the CPU). A backend that ends between two readings loses what it spent
 * since the last one; the app's pool keeps its connections, so under load that is none.
 */
export async function cpuMeter(serverPid: number, databaseUrl: string | null, channel = 'switchboard_events'): Promise<CpuMeter> {
  let client: pg.Client | null = null;
  let ownPid = 0;
  let notifications = 0;
  if (databaseUrl) {
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    ownPid = Number((await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid);
    client.on('notification', () => notifications++);
    await client.query(`listen ${channel}`);
  }
  const read = async () => {
    const server = await cpuByPid(await processTree(serverPid));
    if (!client) return { server, backends: new Map<number, number>() };
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> $1',
      [ownPid],
    );
    return { server, backends: await cpuByPid(rows.map((r) => Number(r.pid))) };
  };
  let last = await read();
  let lastNotifications = 0;
  return {
    async take() {
      const now = await read();
      const out = {
        serverMs: spent(last.server, now.server),
        postgresMs: spent(last.backends, now.backends),
        notifications: notifications - lastNotifications,
      };
      last = now;
      lastNotifications = notifications;
      return out;
    },
    async close() {
      await client?.end();
    },
  };
}
