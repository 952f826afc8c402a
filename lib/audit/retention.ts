import type { Db } from '@/db/connection';
import { deleteEntriesThrough, lastEntryBefore, lockChainHead, updateChainHead, usersWithEntriesBefore } from '@/db/queries/audit';
import { readConfig, type Env } from '@/lib/config';

import { anchorMac } from './chain';
import type { AuditKeyring } from './key';
import { verifyChain } from './verify';

/** `AUDIT_RETENTION_DAYS`: how long entries are kept (whole days, at least 1; default 365). */
export function auditRetentionDays(env?: Env): number {
  return readConfig(env).AUDIT_RETENTION_DAYS;
}

/**
 * Deletes entries older than the retention period, and keeps what is left verifiable: under the
 * chain-head lock, the head remembers the last pruned entry's seq and HMAC — the first kept entry
 * chains from it — and signs that anchor with the audit key, so pruning cannot be imitated by
 * someone who can only write the database (deleting the oldest entries by hand still breaks the
 * chain). Entries are pruned from the start of a chain only, never from its middle. A chain that
 * does not verify up to the first entry kept is left whole — pruning would destroy the evidence —
 * and its user is reported. Only that part is checked, so a frequent sweep stays cheap.
 */
export async function pruneAudit(
  db: Db,
  keys: AuditKeyring,
  opts: { days?: number; now?: Date } = {},
): Promise<{ users: number; entries: number; broken: string[] }> {
  const days = opts.days ?? auditRetentionDays();
  const cutoff = new Date((opts.now ?? new Date()).getTime() - days * 86_400_000);
  let users = 0;
  let entries = 0;
  const broken: string[] = [];
  for (const userId of await usersWithEntriesBefore(db, cutoff)) {
    const deleted = await db.transaction(async (tx) => {
      await lockChainHead(tx, userId);
      const last = await lastEntryBefore(tx, userId, cutoff);
      if (!last) return 0;
      // What is about to go, and the link of the first entry kept to it, must check out first.
      if (!(await verifyChain(tx, keys, userId, { throughSeq: last.seq + 1 })).ok) {
        broken.push(userId);
        return 0;
      }
      const n = await deleteEntriesThrough(tx, userId, last.seq);
      const mac = anchorMac(keys.current.key, { userId, prunedThroughSeq: last.seq, anchorHmac: last.hmac });
      await updateChainHead(tx, userId, { prunedThroughSeq: last.seq, anchorHmac: last.hmac, anchorMac: `${keys.current.id}.${mac}` });
      return n;
    });
    if (deleted) users += 1;
    entries += deleted;
  }
  return { users, entries, broken };
}
