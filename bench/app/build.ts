import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { BENCH_DIST_DIR } from './server';

/*
 * The through-the-app parts measure `next start` on a production build of the code in this
 * folder. On a fresh clone there is none, and a build left from an earlier commit would measure
 * that commit: the build is made (or made again) here when the folder's source is not the one it
 * was built from, so `npm run bench` needs no step before it.
 */

/** Written into the build folder: which source it was built from. */
const STAMP = 'switchboard-bench-source';

/** The commit and a hash of the uncommitted changes to tracked files (empty without git). */
function sourceStamp(cwd: string): string {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const changes = execFileSync('git', ['diff', 'HEAD', '--', '.', ':!bench', ':!test', ':!e2e', ':!docs'], {
      cwd,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    return `${head} ${createHash('sha256').update(changes).digest('hex')}`;
  } catch {
    return '';
  }
}

/**
 * Builds the app into BENCH_DIST_DIR unless it holds a build of this very source. Without git
 * the stamp is empty and an existing build is taken as it is. `next build` adds the build
 * folder's types to tsconfig.json; the file is put back as it was.
 */
export async function ensureAppBuild(log: (line: string) => void, cwd = process.cwd()): Promise<void> {
  const dist = path.join(cwd, BENCH_DIST_DIR);
  const stampFile = path.join(dist, STAMP);
  const stamp = sourceStamp(cwd);
  const built = existsSync(path.join(dist, 'BUILD_ID'));
  if (built && (stamp === '' || (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp))) return;
  log(
    built ? `the build in ${BENCH_DIST_DIR} is of other code: building again (~2 min)` : `no build in ${BENCH_DIST_DIR}: building (~2 min)`,
  );
  const tsconfig = path.join(cwd, 'tsconfig.json');
  const tsconfigBefore = readFileSync(tsconfig, 'utf8');
  try {
    await new Promise<void>((resolve, reject) => {
      const build = spawn(process.execPath, [path.join('node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
        cwd,
        env: { ...process.env, NODE_ENV: 'production', NEXT_DIST_DIR: BENCH_DIST_DIR, NEXT_TELEMETRY_DISABLED: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8_000));
      build.stdout.on('data', keep);
      build.stderr.on('data', keep);
      build.on('error', reject);
      build.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build exited with ${code}:\n${output}`))));
    });
  } finally {
    if (readFileSync(tsconfig, 'utf8') !== tsconfigBefore) writeFileSync(tsconfig, tsconfigBefore);
  }
  writeFileSync(stampFile, stamp);
}
