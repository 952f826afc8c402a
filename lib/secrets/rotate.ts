import { isNotNull, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';

import type { Db } from '@/db/connection';

import { sealedKeyId, type SecretBox } from './secret-box';

/** A text column holding values sealed by the SecretBox, and the primary key of its rows. */
export interface SealedColumn {
  label: string;
  table: PgTable;
  id: PgColumn;
  value: PgColumn;
}

export interface RotationReport {
  label: string;
  /** Re-sealed under the current key. */
  resealed: number;
  /** Already under the current key. */
  current: number;
  /** Could not be opened with any key held (left as they are, counted so the operator sees them). */
  unreadable: number;
}

/**
 * Re-seals every value in `columns` that is not under the current key. Each update only
 * applies if the row still holds the value read (a concurrent write wins), so it is safe
 * while the app runs. Values are never printed.
 */
export async function rotateSecrets(db: Db, box: SecretBox, columns: readonly SealedColumn[]): Promise<RotationReport[]> {
  const reports: RotationReport[] = [];
  for (const col of columns) {
    const report: RotationReport = { label: col.label, resealed: 0, current: 0, unreadable: 0 };
    const rows = (await db.select({ id: col.id, value: col.value }).from(col.table).where(isNotNull(col.value))) as Array<{
      id: unknown;
      value: string;
    }>;
    for (const row of rows) {
      if (sealedKeyId(row.value) === box.keyId) {
        report.current++;
        continue;
      }
      let plaintext: string;
      try {
        plaintext = box.open(row.value);
      } catch {
        report.unreadable++;
        continue;
      }
      const target = sql.identifier(col.value.name);
      await db.execute(
        sql`update ${col.table} set ${target} = ${box.seal(plaintext)} where ${col.id} = ${row.id} and ${col.value} = ${row.value}`,
      );
      report.resealed++;
    }
    reports.push(report);
  }
  return reports;
}
