import { SSE_HEADERS } from '@/lib/agent/sse';
import { openInboxStream } from '@/lib/gateway/inbox-stream';
import { limitsFor } from '@/lib/limits';
import { authed } from '@/lib/server/route';

/** The registry's key for the inbox's streams (no conversation id is this). */
const INBOX_STREAMS = 'inbox';

/** SSE: a notice each time a call of the person's MCP clients starts or stops waiting (lib/gateway/inbox-stream.ts). */
export const GET = authed(async ({ req, rt, session }) => {
  // Counted with the person's conversation streams: each tab's inbox holds a bus subscription and a timer.
  const perUser = limitsFor(session.user.plan).eventStreamsPerUser;
  const stream = await openInboxStream(rt, session.user.id, req.signal, rt.streamTiming.pingMs, (close) =>
    rt.streams.admit({ userId: session.user.id, conversationId: INBOX_STREAMS, caps: { perUser, perConversation: perUser }, close }),
  );
  return new Response(stream, { headers: SSE_HEADERS });
});
