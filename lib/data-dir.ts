import path from 'node:path';

/** Where the embedded database and the generated secrets live (SWITCHBOARD_DATA_DIR, default ./.data). */
export function dataDir(): string {
  return process.env.SWITCHBOARD_DATA_DIR ?? path.join(process.cwd(), '.data');
}
