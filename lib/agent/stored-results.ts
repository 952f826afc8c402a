import type { Db } from '@/db/connection';
import { lockUserLimit } from '@/db/queries/rate-limits';
import { storedResultBytes, type ToolCallPatch } from '@/db/queries/tool-calls';
import { getUserPlan } from '@/db/queries/users';
import { limitsFor } from '@/lib/limits';
import { formatBytes } from '@/lib/mcp/bounded-fetch';

/**
 * A cut result's full text is kept for the paging tool only while the user's stored results stay
 * within `storedResultBytesPerUser`. Past it, only the part the model saw is kept, and the result
 * says so in words the model and the person both read. The check and the write share one
 * transaction under a per-user lock, so parallel calls cannot all slip under the quota at once.
 */
export async function keepWithinStoredQuota<T>(
  db: Db,
  userId: string,
  patch: ToolCallPatch & { fullText: string },
  overQuota: (quotaBytes: number) => ToolCallPatch,
  write: (db: Db, patch: ToolCallPatch) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await lockUserLimit(tx, userId, 'storedResultBytesPerUser');
    const quota = limitsFor(await getUserPlan(tx, userId)).storedResultBytesPerUser;
    const used = await storedResultBytes(tx, userId);
    if (used + Buffer.byteLength(patch.fullText) <= quota) return write(tx, patch);
    return write(tx, { ...overQuota(quota), fullText: null });
  });
}

/** The marker after a cut result whose rest could not be kept. */
export function quotaFullNote(quotaBytes: number) {
  return (shown: number, total: number) =>
    `[… result truncated: ${shown} of ${total} characters shown. The rest was not kept, so it cannot be read later: the ` +
    `stored-results quota (${formatBytes(quotaBytes)}) of this account is full. Tell the person; they can free space by deleting ` +
    `conversations they no longer need.]`;
}
