import type { Db } from '@/db/connection';
import { listChainUsers } from '@/db/queries/audit';

import type { ExportHeadLine } from './export';
import type { AuditKeyring } from './key';
import { verifyChain, type VerifyResult } from './verify';

/**
 * `npm run audit:verify`: checks every user's chain, and an export's head against its user's
 * chain when given. Prints one line per user and a summary; the exit code is 1 when any chain is
 * broken, so a scheduler or CI can alert on it.
 */
export async function verifyAllChains(
  db: Db,
  keys: AuditKeyring,
  opts: { exportHead?: ExportHeadLine | null; print?: (line: string) => void } = {},
): Promise<{ exitCode: 0 | 1; results: VerifyResult[] }> {
  const print = opts.print ?? console.log;
  const users = await listChainUsers(db);
  if (opts.exportHead && !users.includes(opts.exportHead.userId)) users.push(opts.exportHead.userId);
  const results: VerifyResult[] = [];
  for (const userId of users) {
    const exported =
      opts.exportHead?.userId === userId && opts.exportHead.hmac ? { seq: opts.exportHead.seq, hmac: opts.exportHead.hmac } : undefined;
    const r = await verifyChain(db, keys, userId, { head: exported });
    results.push(r);
    const against = exported ? ` (and the export's head, entry ${exported.seq})` : '';
    if (r.ok) {
      const span = r.checked ? `entries ${r.firstSeq}–${r.lastSeq}` : 'no entries';
      const pruned = r.prunedThroughSeq ? `, 1–${r.prunedThroughSeq} pruned by retention` : '';
      print(`ok      user ${userId}: ${r.checked} ${r.checked === 1 ? 'entry' : 'entries'} (${span}${pruned})${against}`);
    } else {
      print(`BROKEN  user ${userId}: at entry ${r.seq} (${r.problem}) — ${r.message}${against}`);
    }
  }
  const broken = results.filter((r) => !r.ok).length;
  print(broken ? `${broken} of ${results.length} audit chains are broken.` : `All ${results.length} audit chains verify.`);
  return { exitCode: broken ? 1 : 0, results };
}
