import { hasUnfinishedViewCalls } from '@/db/queries/tool-calls';
import { activeRunOf } from '@/lib/agent/engine';
import { openEventStream, SSE_HEADERS } from '@/lib/agent/sse';
import type { Session } from '@/lib/auth/session';
import { limitsFor } from '@/lib/limits';

import type { Runtime } from './runtime';

/**
 * A conversation's event stream for the signed-in user, counted against their stream caps (the
 * oldest stream over a cap is closed). Opening it, and each of its pings, goes through
 * `activeRunOf`: following a conversation continues its run if the instance driving it died.
 */
export async function eventStreamResponse(
  rt: Runtime,
  session: Session,
  conversationId: string,
  afterSeq: number,
  signal: AbortSignal,
): Promise<Response> {
  const limits = limitsFor(session.user.plan);
  const caps = { perUser: limits.eventStreamsPerUser, perConversation: limits.eventStreamsPerConversation };
  const stream = await openEventStream({
    db: rt.handle.db,
    bus: rt.bus,
    conversationId,
    afterSeq,
    signal,
    ...rt.streamTiming,
    activeRun: () => activeRunOf(rt.engine, conversationId),
    register: (close) => rt.streams.admit({ userId: session.user.id, conversationId, caps, close }),
    holdWhile: () => hasUnfinishedViewCalls(rt.handle.db, conversationId),
  });
  if (!stream) return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  return new Response(stream, { headers: SSE_HEADERS });
}
