import type { Db } from '@/db/connection';
import { hitRateLimit, lockUserLimit } from '@/db/queries/rate-limits';
import { countPendingViewCalls } from '@/db/queries/tool-calls';

/**
 * How much an interactive view may ask (MCP Apps). A view is the server's code running on the
 * person's screen: a hostile or broken one must not bury the conversation under approval cards or
 * hammer its server through our consent path. Counted in the shared `rate_limits` table (one
 * statement per hit, so every instance counts), and waiting calls counted under a lock.
 */
export interface ViewCallLimits {
  windowMs: number;
  /** Calls one view (one tool call's card) may ask for per window. */
  perView: number;
  /** Calls all the views of one conversation may ask for per window. */
  perConversation: number;
  /** Calls of one view that may wait for the person's decision at once. */
  pendingPerView: number;
  /** Calls of all the views of one conversation that may wait at once. */
  pendingPerConversation: number;
}

export const VIEW_CALL_LIMITS: Readonly<ViewCallLimits> = {
  windowMs: 10_000,
  perView: 5,
  perConversation: 20,
  pendingPerView: 3,
  pendingPerConversation: 10,
};

const WAIT = 'Wait a few seconds and try again.';
const DECIDE = 'Decide those first.';

/** A refusal in words, or null: counts one call asked by the view of `viewOf` in `conversationId`. */
export async function viewCallRateRefusal(
  db: Db,
  ids: { conversationId: string; viewOf: string },
  limits: ViewCallLimits = VIEW_CALL_LIMITS,
): Promise<string | null> {
  const seconds = limits.windowMs / 1000;
  const [view, conversation] = await Promise.all([
    hitRateLimit(db, `view-calls:view:${ids.viewOf}`, limits.windowMs),
    hitRateLimit(db, `view-calls:conversation:${ids.conversationId}`, limits.windowMs),
  ]);
  if (view > limits.perView) {
    return `This interactive view asked for too many tool calls: at most ${limits.perView} in ${seconds} seconds. ${WAIT}`;
  }
  if (conversation > limits.perConversation) {
    return (
      `The interactive views of this conversation asked for too many tool calls: ` +
      `at most ${limits.perConversation} in ${seconds} seconds together. ${WAIT}`
    );
  }
  return null;
}

/**
 * Serializes the views of one conversation adding waiting calls (count, then insert, nothing in
 * between on any instance) and refuses one past the caps, in words. Must run inside a transaction.
 */
export async function pendingViewCallRefusal(
  tx: Db,
  ids: { userId: string; conversationId: string; viewOf: string },
  limits: ViewCallLimits = VIEW_CALL_LIMITS,
): Promise<string | null> {
  await lockUserLimit(tx, ids.userId, `view-calls-pending:${ids.conversationId}`);
  const waiting = await countPendingViewCalls(tx, ids.conversationId, ids.viewOf);
  if (waiting.view >= limits.pendingPerView) {
    const most = limits.pendingPerView;
    return `This interactive view already has ${waiting.view} calls waiting for your decision (at most ${most}). ${DECIDE}`;
  }
  if (waiting.conversation >= limits.pendingPerConversation) {
    return (
      `The interactive views of this conversation already have ${waiting.conversation} calls waiting for your decision ` +
      `(at most ${limits.pendingPerConversation}). ${DECIDE}`
    );
  }
  return null;
}
