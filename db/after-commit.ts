import { PgTransaction, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';

import type * as schema from './schema';

/** The database type of ./connection.ts (not imported from there: connection.ts installs this). */
type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** What runs once a transaction (and every savepoint it went through) has committed. */
interface CommitScope {
  hooks: (() => void)[];
}

const scopes = new WeakMap<object, CommitScope>();

type TransactionFn = (fn: (tx: Db) => Promise<unknown>, config?: unknown) => Promise<unknown>;

/**
 * Makes `afterCommit` work on the transactions of `db`: each one opened through it (and each
 * savepoint inside one) is followed, so work can wait for the commit of what it wrote. Drizzle
 * has no commit hook; this wraps `db.transaction` on this one object, nothing global.
 */
export function trackCommits(db: Db): void {
  const open = db.transaction.bind(db) as TransactionFn;
  (db as { transaction: TransactionFn }).transaction = async (fn, config) => {
    const scope: CommitScope = { hooks: [] };
    const result = await open((tx) => {
      follow(tx, scope);
      return fn(tx);
    }, config);
    // Committed: a hook that throws must not turn a commit into an error for the caller.
    for (const hook of scope.hooks) runHook(hook);
    return result;
  };
}

/** A transaction's savepoints share its scope; what one rolled back registered is dropped with it. */
function follow(tx: Db, scope: CommitScope): void {
  scopes.set(tx, scope);
  const nest = tx.transaction.bind(tx) as TransactionFn;
  (tx as { transaction: TransactionFn }).transaction = (fn, config) =>
    nest(async (inner) => {
      follow(inner, scope);
      const mark = scope.hooks.length;
      try {
        return await fn(inner);
      } catch (err) {
        scope.hooks.length = mark;
        throw err;
      }
    }, config);
}

function runHook(hook: () => void): void {
  try {
    hook();
  } catch (err) {
    console.error('[db] after-commit work failed:', err instanceof Error ? err.message : String(err));
  }
}

/**
 * Runs `hook` once what was written through `db` is committed: at once when `db` is not a
 * transaction (each statement commits on its own), else when its outermost transaction commits,
 * and never when it rolls back. A transaction `trackCommits` does not follow is refused, so a
 * caller cannot mistake "now" for "committed".
 */
export function afterCommit(db: Db, hook: () => void): void {
  if (!((db as unknown) instanceof PgTransaction)) return runHook(hook);
  const scope = scopes.get(db);
  if (!scope) throw new Error('afterCommit: this transaction was not opened through a database that trackCommits follows');
  scope.hooks.push(hook);
}
