import type { Db } from '@/db/connection';
import { activityNames, listActivity, type ActivityFilter, type Named } from '@/db/queries/audit';
import type { StoredAuditContent } from '@/db/stored-json';
import type { AuditKind } from '@/db/vocabulary';

import { exportAuditLines } from './export';
import type { AuditKeyring } from './key';
import { verifyChain, type ExportedHead, type VerifyResult } from './verify';

/** One entry as the Activity page reads it: the signed content, with where it sits in the chain. */
export interface ActivityEntry {
  id: string;
  seq: number;
  at: string;
  kind: AuditKind;
  content: StoredAuditContent;
  hmac: string;
}

export interface ActivityPage {
  entries: ActivityEntry[];
  /** Pass as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export const DEFAULT_ACTIVITY_PAGE = 50;
export const MAX_ACTIVITY_PAGE = 200;

/** A page of the person's own log, newest first. Another user's entries are never read. */
export async function activityPage(db: Db, userId: string, filter: ActivityFilter, limit = DEFAULT_ACTIVITY_PAGE): Promise<ActivityPage> {
  const rows = await listActivity(db, userId, filter, limit + 1);
  const page = rows.slice(0, limit);
  return {
    entries: page.map((r) => ({ id: r.id, seq: r.seq, at: r.at.toISOString(), kind: r.kind, content: r.content, hmac: r.hmac })),
    nextCursor: rows.length > limit ? String(page[page.length - 1]!.seq) : null,
  };
}

/** The person's chain checked from start to head (and against an exported head, when given). */
export function verifyMine(db: Db, keys: AuditKeyring, userId: string, head?: ExportedHead): Promise<VerifyResult> {
  return verifyChain(db, keys, userId, { head });
}

/** The person's whole log as a JSON Lines byte stream, the chain head last. */
export function exportStream(db: Db, userId: string): ReadableStream<Uint8Array> {
  const lines = exportAuditLines(db, userId);
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}

/** What the Activity filters offer: the conversations and servers the person's log mentions, deleted ones too. */
export function activityFilterOptions(db: Db, userId: string): Promise<{ conversations: Named[]; servers: Named[] }> {
  return activityNames(db, userId);
}
