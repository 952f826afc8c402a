import { unlinkSync } from 'node:fs';
import { mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * PGlite allows one process per data folder and does not lock it: a second process opens it
 * without complaint and the two corrupt it (its own `postmaster.pid` says pid -42, is removed by
 * whichever process closes first, and is left behind by every process that exits without
 * closing — the app never closes). So each process that opens the folder leaves a file of its
 * own here, named by host and pid, removed when it closes or exits; a crashed one is recognised
 * by its pid being gone. Backup and restore read them to refuse a folder in use.
 */
export const HOLDERS_FOLDER = 'pglite.holders';

export interface DataDirHolder {
  pid: number;
  host: string;
  /** What holds it: `app`, a script's name, `backup`… */
  what: string;
  since: string;
}

/** Records that this process has the data folder open; returns the release (also run at exit). */
export async function holdDataDir(dataDir: string, what: string): Promise<() => void> {
  const dir = path.join(dataDir, HOLDERS_FOLDER);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${os.hostname()}-${process.pid}.json`);
  const holder: DataDirHolder = { pid: process.pid, host: os.hostname(), what, since: new Date().toISOString() };
  await writeFile(file, JSON.stringify(holder), { mode: 0o600 });
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      unlinkSync(file);
    } catch {
      // Already gone: nothing to release.
    }
  };
  process.on('exit', release);
  return release;
}

/**
 * The processes that hold the data folder now. A holder on this host whose pid is gone crashed:
 * its file is removed. One on another host (a shared volume) cannot be checked and counts as live.
 */
export async function liveHolders(dataDir: string): Promise<DataDirHolder[]> {
  const dir = path.join(dataDir, HOLDERS_FOLDER);
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const live: DataDirHolder[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const file = path.join(dir, name);
    const holder = await readHolder(file);
    if (!holder) continue;
    if (holder.host !== os.hostname() || isRunning(holder.pid)) live.push(holder);
    else await unlink(file).catch(() => {});
  }
  return live;
}

async function readHolder(file: string): Promise<DataDirHolder | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<DataDirHolder>;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? (parsed as DataDirHolder) : null;
  } catch {
    return null; // a file half written by a process starting right now, or not ours
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holders in one sentence, for a refusal. */
export function describeHolders(holders: DataDirHolder[]): string {
  return holders.map((h) => `${h.what} (pid ${h.pid}${h.host === os.hostname() ? '' : ` on host ${h.host}`}, since ${h.since})`).join(', ');
}
