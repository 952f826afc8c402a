import type { Db } from '@/db/connection';
import { deleteShareLinksExpiredBy } from '@/db/queries/shares';

/**
 * How long an expired link is kept before the sweep deletes it. An expired link already opens
 * nothing (it is the same 404 as an unknown one); it stays a while only so its owner's list can
 * still say "Expired" instead of the link silently vanishing.
 */
export const EXPIRED_SHARE_KEPT_DAYS = 30;

/** Deletes links that expired more than `EXPIRED_SHARE_KEPT_DAYS` ago; returns how many. */
export async function pruneExpiredShareLinks(db: Db, now: Date = new Date()): Promise<number> {
  return deleteShareLinksExpiredBy(db, new Date(now.getTime() - EXPIRED_SHARE_KEPT_DAYS * 86_400_000));
}
