import type { Db } from '@/db/connection';
import { listMessages, type MessageRow } from '@/db/queries/messages';

/**
 * The messages of a conversation as the person reads it, in order. Today a conversation's
 * history is one line, so this is every message by `seq`; when edits start branches, this is
 * the one place that becomes "the branch on screen" (the export reads only this).
 */
export async function activePath(db: Db, conversationId: string): Promise<MessageRow[]> {
  return listMessages(db, conversationId);
}
