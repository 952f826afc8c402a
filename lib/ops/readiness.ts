import type { DbHandle } from '@/db/connection';
import { migrationStatus, type MigrationStatus } from '@/db/migration-status';
import { pingDatabase } from '@/db/queries/migrations';
import { errorSummary } from '@/lib/log-safe';

export type Readiness =
  | { ready: true; body: { status: 'ready'; database: DbHandle['kind']; migrations: { applied: number; expected: number } } }
  | { ready: false; body: { status: 'not_ready'; database?: DbHandle['kind']; migrations?: MigrationStatus; problem: string } };

/** Past this a database that does not answer counts as down: a readiness probe must answer quickly. */
export const READY_TIMEOUT_MS = 2_000;

/** A reason this instance cannot serve, in words fit for a public answer (the details go to the log). */
class NotReady extends Error {}

/**
 * Is this instance able to serve: the database answers `select 1` and has every migration of
 * the journal applied. `open` is how the caller reaches its database (opened on first use). The
 * answer is public, so a driver's own message (host names, ports) is logged here
 * rather than sent.
 */
export async function readiness(open: () => Promise<DbHandle>, timeoutMs = READY_TIMEOUT_MS): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new NotReady(`the database did not answer within ${timeoutMs} ms (it may still be opening)`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([check(open), late]);
  } catch (err) {
    const problem = err instanceof NotReady ? err.message : 'the readiness check failed unexpectedly (see the server log)';
    if (!(err instanceof NotReady)) console.error('[ready] check failed:', errorSummary(err));
    return { ready: false, body: { status: 'not_ready', problem } };
  } finally {
    clearTimeout(timer);
  }
}

async function check(open: () => Promise<DbHandle>): Promise<Readiness> {
  const handle = await open().catch((err) => {
    console.error('[ready] the database could not be opened:', errorSummary(err));
    throw new NotReady('the database could not be opened (see the server log)');
  });
  const database = handle.kind;
  try {
    await pingDatabase(handle.db);
  } catch (err) {
    console.error('[ready] select 1 failed:', errorSummary(err));
    return { ready: false, body: { status: 'not_ready', database, problem: 'the database did not answer select 1 (see the server log)' } };
  }
  const migrations = await migrationStatus(handle.db);
  if (migrations.missing.length) {
    const problem =
      `${migrations.missing.length} of ${migrations.expected} migrations not applied: ${migrations.missing.join(', ')}. ` +
      'Run npm run db:migrate, or restart the app, which applies them.';
    return { ready: false, body: { status: 'not_ready', database, migrations, problem } };
  }
  return { ready: true, body: { status: 'ready', database, migrations: { applied: migrations.applied, expected: migrations.expected } } };
}
