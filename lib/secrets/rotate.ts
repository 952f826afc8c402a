import { isNotNull, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

import type { Db } from '@/db/connection';

import { sealedKeyId, sealedVersion, type SealContext, type SecretBox } from './secret-box';

/**
 * A text column holding values sealed by the SecretBox: its table, the primary key of its rows,
 * and how a row's SealContext is built (from the columns in `keys`, read as text).
 */
export interface SealedColumn<K extends string = string> {
  label: string;
  table: PgTable;
  id: PgColumn;
  value: PgColumn;
  keys: Record<K, PgColumn>;
  // A method, so a column with its own key names is still a SealedColumn.
  context(row: Record<K, string>): SealContext;
}

export interface RotationReport {
  label: string;
  /** Re-sealed under the current key (and as v2, bound to its row). */
  resealed: number;
  /** Of those, values of the older v1 format (not bound to their row before). */
  upgraded: number;
  /** Already v2 under the current key. */
  current: number;
  /** Could not be opened with any key held, or not here (left as they are, counted so the operator sees them). */
  unreadable: number;
}

/**
 * Re-seals every value in `columns` that is not v2 under the current key: values under a
 * previous key, and v1 values (sealed before values were bound to their row), which become v2
 * with their row's context. Each update only applies if the row still holds the value read (a
 * concurrent write wins), so it is safe while the app runs. Values are never printed.
 */
export async function rotateSecrets(db: Db, box: SecretBox, columns: readonly SealedColumn[]): Promise<RotationReport[]> {
  const reports: RotationReport[] = [];
  for (const col of columns) {
    const report: RotationReport = { label: col.label, resealed: 0, upgraded: 0, current: 0, unreadable: 0 };
    const rows = (await db
      .select({ ...col.keys, rotateId: col.id, rotateValue: col.value })
      .from(col.table)
      .where(isNotNull(col.value))) as Array<Record<string, unknown> & { rotateId: unknown; rotateValue: string }>;
    for (const row of rows) {
      const sealed = row.rotateValue;
      const version = sealedVersion(sealed);
      if (version === 'v2' && sealedKeyId(sealed) === box.keyId) {
        report.current++;
        continue;
      }
      const context = col.context(Object.fromEntries(Object.keys(col.keys).map((k) => [k, String(row[k])])));
      let plaintext: string;
      try {
        plaintext = box.open(sealed, context);
      } catch {
        report.unreadable++;
        continue;
      }
      const target = sql.identifier(col.value.name);
      const resealed = box.seal(plaintext, context);
      await db.execute(sql`update ${col.table} set ${target} = ${resealed} where ${col.id} = ${row.rotateId} and ${col.value} = ${sealed}`);
      report.resealed++;
      if (version === 'v1') report.upgraded++;
    }
    reports.push(report);
  }
  return reports;
}
