import type { Db } from '@/db/connection';
import { listPath, type MessageRow } from '@/db/queries/messages';

/**
 * The messages of a conversation as the person reads it, in order: the branch on screen, from the
 * first message to the active leaf (lib/chat/branches.ts). The export reads only this.
 */
export async function activePath(db: Db, conversationId: string): Promise<MessageRow[]> {
  return listPath(db, conversationId);
}
