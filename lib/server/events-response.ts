import { resumeLapsedRuns } from '@/lib/agent/engine';
import { openEventStream, SSE_HEADERS } from '@/lib/agent/sse';

import type { Runtime } from './runtime';

export async function eventStreamResponse(rt: Runtime, conversationId: string, afterSeq: number, signal: AbortSignal): Promise<Response> {
  const stream = await openEventStream({
    db: rt.handle.db,
    bus: rt.bus,
    conversationId,
    afterSeq,
    signal,
    onIdle: () => resumeLapsedRuns(rt.engine, conversationId),
  });
  if (!stream) return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  return new Response(stream, { headers: SSE_HEADERS });
}
