import { SSE_HEADERS } from '@/lib/agent/sse';
import { openInboxStream } from '@/lib/gateway/inbox-stream';
import { authed } from '@/lib/server/route';

/** SSE: a notice each time a call of the person's MCP clients starts or stops waiting (lib/gateway/inbox-stream.ts). */
export const GET = authed(async ({ req, rt, session }) => {
  const stream = await openInboxStream(rt, session.user.id, req.signal, rt.streamTiming.pingMs);
  return new Response(stream, { headers: SSE_HEADERS });
});
