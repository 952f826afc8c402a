import { readConfig } from '@/lib/config';

/** Where the embedded database and the generated secrets live (SWITCHBOARD_DATA_DIR, default ./.data). */
export function dataDir(): string {
  return readConfig().SWITCHBOARD_DATA_DIR;
}
