import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { MIGRATIONS_FOLDER, type Db } from './connection';
import { appliedMigrationTimes } from './queries/migrations';

export interface MigrationStatus {
  applied: number;
  expected: number;
  /** The journal's tags (e.g. `0013_share_links`) of migrations the database has not recorded. */
  missing: string[];
}

type JournalEntry = { tag: string; when: number };

// The journal does not change while the process runs: read once per folder.
const journals = new Map<string, Promise<JournalEntry[]>>();

function journalOf(folder: string): Promise<JournalEntry[]> {
  let journal = journals.get(folder);
  if (!journal) {
    journal = readFile(path.join(folder, 'meta', '_journal.json'), 'utf8').then(
      (text) => (JSON.parse(text) as { entries: JournalEntry[] }).entries,
    );
    journal.catch(() => journals.delete(folder));
    journals.set(folder, journal);
  }
  return journal;
}

/**
 * Which migrations of db/migrations/meta/_journal.json the database has applied, matched the way
 * drizzle's migrator matches them: by the entry's `when`, recorded as `created_at`.
 */
export async function migrationStatus(db: Db, folder = MIGRATIONS_FOLDER): Promise<MigrationStatus> {
  const [journal, appliedTimes] = await Promise.all([journalOf(folder), appliedMigrationTimes(db)]);
  const applied = new Set(appliedTimes);
  const missing = journal.filter((e) => !applied.has(e.when)).map((e) => e.tag);
  return { applied: journal.length - missing.length, expected: journal.length, missing };
}
