import { z } from 'zod';

import type { Db } from '@/db/connection';
import { getChainHead, listChainPage } from '@/db/queries/audit';

const PAGE = 500;

/** The last line of an export: where the chain ended when it was taken. Keep it to check the log later. */
const exportHeadLine = z.object({
  type: z.literal('head'),
  userId: z.string(),
  seq: z.number().int().min(0),
  hmac: z.string().nullable(),
  prunedThroughSeq: z.number().int().min(0),
  exportedAt: z.string(),
});
export type ExportHeadLine = z.infer<typeof exportHeadLine>;

/**
 * A user's whole log as JSON Lines, oldest first, exactly as stored (seq, time, key id, content,
 * previous and own HMAC), then the chain head as the last line. The head is read first and the
 * export stops at it, so entries appended meanwhile do not make the two disagree. Filters do not
 * apply: a partial chain could not be checked.
 */
export async function* exportAuditLines(db: Db, userId: string, now = new Date()): AsyncGenerator<string> {
  const head = await getChainHead(db, userId);
  const lastSeq = head?.lastSeq ?? 0;
  let after = head?.prunedThroughSeq ?? 0;
  while (after < lastSeq) {
    const page = (await listChainPage(db, userId, after, PAGE)).filter((r) => r.seq <= lastSeq);
    if (!page.length) break;
    for (const r of page) {
      const line = {
        type: 'entry',
        seq: r.seq,
        at: r.at.toISOString(),
        kind: r.kind,
        keyId: r.keyId,
        content: r.content,
        prevHmac: r.prevHmac,
        hmac: r.hmac,
      };
      yield `${JSON.stringify(line)}\n`;
    }
    after = page[page.length - 1]!.seq;
  }
  const headLine: ExportHeadLine = {
    type: 'head',
    userId,
    seq: lastSeq,
    hmac: head?.lastHmac ?? null,
    prunedThroughSeq: head?.prunedThroughSeq ?? 0,
    exportedAt: now.toISOString(),
  };
  yield `${JSON.stringify(headLine)}\n`;
}

/** The head line of an export (its last non-empty line), or null when there is none. */
export function headOfExport(text: string): ExportHeadLine | null {
  const lines = text.split('\n').filter((l) => l.trim());
  const last = lines[lines.length - 1];
  if (!last) return null;
  try {
    const parsed = exportHeadLine.safeParse(JSON.parse(last));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // not JSON
  }
}
