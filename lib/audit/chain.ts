import { createHmac, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';

import type { StoredAuditContent } from '@/db/stored-json';
import type { AuditKind } from '@/db/vocabulary';

/** What the first entry of a chain chains from. */
export const GENESIS = '0'.repeat(64);

/** The part of an entry its HMAC covers: everything but its own HMAC and the previous one (chained separately). */
export interface SignedFields {
  userId: string;
  seq: number;
  at: Date;
  kind: AuditKind;
  keyId: string;
  content: StoredAuditContent;
}

/**
 * HMAC-SHA256 over the previous entry's HMAC and the RFC 8785 (JCS) encoding of this entry's
 * fields. JCS makes the bytes independent of key order and of how the database stores the JSON,
 * so the entry read back signs the same as the entry written.
 */
export function entryMac(key: Buffer, prevHmac: string, f: SignedFields): string {
  const body = canonicalize({
    v: 1,
    userId: f.userId,
    seq: f.seq,
    at: f.at.toISOString(),
    kind: f.kind,
    keyId: f.keyId,
    content: f.content,
  });
  return createHmac('sha256', key).update(`switchboard-audit-entry\n${prevHmac}\n`).update(body!).digest('hex');
}

/**
 * Signs the point a pruned chain starts from: the user, the last pruned seq and that entry's
 * HMAC. Whoever can only write the database cannot move it to hide entries that were not pruned.
 */
export function anchorMac(key: Buffer, a: { userId: string; prunedThroughSeq: number; anchorHmac: string }): string {
  const body = canonicalize({ v: 1, userId: a.userId, prunedThroughSeq: a.prunedThroughSeq, anchorHmac: a.anchorHmac });
  return createHmac('sha256', key).update('switchboard-audit-anchor\n').update(body!).digest('hex');
}

export function sameMac(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
