import { z } from 'zod';

/**
 * Reading a JSON column through its schema (db/queries): a shape no version accepts is a damaged
 * row.
 */

// ── reading ────────────────────────────────────────────────────────────────────────────────

/** A stored value that no version of its schema accepts: the row is damaged, not the request. */
export class StoredShapeError extends Error {
  constructor(column: string, rowId: string, issue: string) {
    super(`The stored ${column} of row ${rowId} has an unknown shape: ${issue}`);
  }
}

/** Parses one column of one row; null stays null. */
export function parseStored<S extends z.ZodType>(schema: S, value: unknown, column: string, rowId: string): z.output<S> | null {
  if (value === null || value === undefined) return null;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoredShapeError(column, rowId, issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid');
  }
  return parsed.data;
}
