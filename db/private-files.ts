import { chmod, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * The data folder holds the whole database and the auth secret: only the user the app runs as
 * may enter it. mkdir's mode does not change a folder that already exists (an install from
 * before this rule), hence the chmod.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/**
 * Folders 0700 and files 0600 under `root`. PGlite creates its files with the process umask
 * (often world-readable); files it adds later are still shielded by the private folder above.
 */
export async function restrictTree(root: string): Promise<void> {
  await chmod(root, 0o700);
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) await restrictTree(full);
    else if (entry.isFile()) await chmod(full, 0o600);
  }
}
