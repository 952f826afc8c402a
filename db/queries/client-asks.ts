import { and, desc, eq, gt, isNull } from 'drizzle-orm';

import type { Db } from '../connection';
import { clientAsks } from '../schema';

export type ClientAskRow = typeof clientAsks.$inferSelect;

/** Records a `switchboard_ask` call and the turn it started (lib/gateway/ask-tool.ts). */
export async function insertClientAsk(
  db: Db,
  input: { userId: string; clientId: string; conversationId: string; runId: string; promptHash: string; followUp: boolean },
): Promise<ClientAskRow> {
  const rows = await db.insert(clientAsks).values(input).returning();
  return rows[0]!;
}

/**
 * The client's latest call with this prompt, since `since`, whose answer has not gone back: a
 * retry of it reads that turn's answer instead of starting another. A follow-up is looked up in its
 * conversation; a call that started a conversation, among those that did.
 */
export async function findUnansweredAsk(
  db: Db,
  input: { userId: string; clientId: string; promptHash: string; conversationId: string | null; since: Date },
): Promise<ClientAskRow | null> {
  const rows = await db
    .select()
    .from(clientAsks)
    .where(
      and(
        eq(clientAsks.userId, input.userId),
        eq(clientAsks.clientId, input.clientId),
        eq(clientAsks.promptHash, input.promptHash),
        isNull(clientAsks.answeredAt),
        gt(clientAsks.createdAt, input.since),
        input.conversationId === null ? eq(clientAsks.followUp, false) : eq(clientAsks.conversationId, input.conversationId),
      ),
    )
    .orderBy(desc(clientAsks.createdAt))
    .limit(1);
  return rows[0] ?? null;
}

/** The answer has gone back to the client: a later call with the same prompt is a new question. */
export async function markClientAskAnswered(db: Db, id: string, now = new Date()): Promise<void> {
  await db
    .update(clientAsks)
    .set({ answeredAt: now })
    .where(and(eq(clientAsks.id, id), isNull(clientAsks.answeredAt)));
}
