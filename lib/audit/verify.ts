import type { Db } from '@/db/connection';
import { getChainHead, listChainPage, type AuditEntryRow } from '@/db/queries/audit';
import { storedAuditContent } from '@/db/stored-json';

import { indexColumns } from './append';
import { anchorMac, entryMac, GENESIS, sameMac } from './chain';
import type { AuditKeyring } from './key';

/** Why a chain does not check out, at the first entry where it breaks. */
export type ChainProblem = 'edited' | 'missing' | 'tail_deleted' | 'unknown_key' | 'anchor' | 'head';

/** A chain head as an export carries it (its last line), to catch a tail deleted later. */
export interface ExportedHead {
  seq: number;
  hmac: string;
}

export type VerifyResult =
  | { ok: true; userId: string; checked: number; firstSeq: number | null; lastSeq: number; prunedThroughSeq: number }
  | { ok: false; userId: string; checked: number; seq: number; problem: ChainProblem; message: string };

const PAGE = 500;

/**
 * Walks one user's chain from its start (or the signed anchor retention left) to its head and
 * recomputes every HMAC. Reports the first entry where it breaks: an entry changed after it was
 * written, a seq missing in the middle, entries missing at the end (against the chain head row,
 * and against `opts.head` from an earlier export — the only check that also catches a tail deleted
 * together with a head row rewound to match), or a key it does not hold.
 */
export async function verifyChain(
  db: Db,
  keys: AuditKeyring,
  userId: string,
  /** `throughSeq`: stop after that entry (retention checks only what it is about to prune). */
  opts: { head?: ExportedHead; throughSeq?: number } = {},
): Promise<VerifyResult> {
  const head = await getChainHead(db, userId);
  const pruned = head?.prunedThroughSeq ?? 0;
  let checked = 0;
  const fail = (seq: number, problem: ChainProblem, message: string): VerifyResult => ({
    ok: false,
    userId,
    checked,
    seq,
    problem,
    message,
  });

  let prev = GENESIS;
  if (pruned > 0) {
    const anchor = checkAnchor(keys, userId, head!);
    if (anchor) return fail(pruned + 1, 'anchor', anchor);
    prev = head!.anchorHmac!;
  }
  let expected = pruned + 1;
  let exportedSeen = false;
  for (;;) {
    const page = await listChainPage(db, userId, expected - 1, PAGE);
    for (const row of page) {
      if (row.seq !== expected) {
        const from = expected === pruned + 1 ? 'starts at' : `goes from entry ${expected - 1} to`;
        return fail(expected, 'missing', `Entry ${expected} is missing: the log ${from} entry ${row.seq}.`);
      }
      const problem = checkEntry(keys, row, prev);
      if (problem) return fail(row.seq, problem.kind, problem.message);
      if (opts.head && opts.head.seq === row.seq) {
        exportedSeen = true;
        if (!sameMac(opts.head.hmac, row.hmac)) {
          return fail(row.seq, 'edited', `Entry ${row.seq} is not the entry the export recorded as the chain head (its HMAC differs).`);
        }
      }
      prev = row.hmac;
      expected += 1;
      checked += 1;
      if (row.seq === opts.throughSeq)
        return { ok: true, userId, checked, firstSeq: pruned + 1, lastSeq: row.seq, prunedThroughSeq: pruned };
    }
    if (page.length < PAGE) break;
  }
  const last = expected - 1;
  if (!head) {
    if (last > 0) return fail(last, 'head', `The chain head of this log is missing although it has ${last} entries.`);
  } else if (head.lastSeq > last) {
    return fail(
      last + 1,
      'tail_deleted',
      `The chain head says the log ends at entry ${head.lastSeq}, but it ends at entry ${last}: the newest entries were deleted.`,
    );
  } else if (head.lastSeq < last) {
    return fail(head.lastSeq + 1, 'head', `Entries after the chain head (entry ${head.lastSeq}) were added outside the log's own append.`);
  } else if (last > pruned && !sameMac(head.lastHmac ?? '', prev)) {
    return fail(last, 'edited', `Entry ${last} is not the entry the chain head recorded (its HMAC differs).`);
  }
  if (opts.head && !exportedSeen && opts.head.seq > last) {
    return fail(
      last + 1,
      'tail_deleted',
      `An export recorded the log up to entry ${opts.head.seq}, but it now ends at entry ${last}: the newest entries were deleted.`,
    );
  }
  return { ok: true, userId, checked, firstSeq: checked ? pruned + 1 : null, lastSeq: last, prunedThroughSeq: pruned };
}

function checkEntry(keys: AuditKeyring, row: AuditEntryRow, prev: string): { kind: ChainProblem; message: string } | null {
  const key = keys.byId.get(row.keyId);
  if (!key)
    return {
      kind: 'unknown_key',
      message: `Entry ${row.seq} was signed with key ${row.keyId}, which is neither AUDIT_KEY nor one of AUDIT_KEY_PREVIOUS.`,
    };
  if (!sameMac(row.prevHmac, prev)) {
    return { kind: 'edited', message: `Entry ${row.seq} does not chain from entry ${row.seq - 1}: one of the two was changed.` };
  }
  const changed = {
    kind: 'edited' as const,
    message: `Entry ${row.seq} was changed after it was written (its HMAC no longer matches its content).`,
  };
  const content = storedAuditContent.safeParse(row.content);
  if (!content.success || row.kind !== content.data.kind) return changed;
  const fields = { userId: row.userId, seq: row.seq, at: row.at, kind: row.kind, keyId: row.keyId, content: content.data };
  if (!sameMac(entryMac(key, prev, fields), row.hmac)) return changed;
  const derived = indexColumns(content.data);
  const moved = (Object.keys(derived) as (keyof typeof derived)[]).filter((k) => (row[k] ?? null) !== (derived[k] ?? null));
  if (moved.length) {
    return { kind: 'edited', message: `Entry ${row.seq}'s columns ${moved.join(', ')} no longer match its signed content.` };
  }
  return null;
}

function checkAnchor(
  keys: AuditKeyring,
  userId: string,
  head: { prunedThroughSeq: number; anchorHmac: string | null; anchorMac: string | null },
): string | null {
  const [keyId, mac] = (head.anchorMac ?? '').split('.');
  const key = keyId ? keys.byId.get(keyId) : undefined;
  if (!head.anchorHmac || !mac || !key) return 'The point where retention pruned this log is not signed by a key held here.';
  const expected = anchorMac(key, { userId, prunedThroughSeq: head.prunedThroughSeq, anchorHmac: head.anchorHmac });
  return sameMac(expected, mac) ? null : `The retention anchor (entries up to ${head.prunedThroughSeq} pruned) was changed.`;
}
