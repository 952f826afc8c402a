import { z } from 'zod';

import { MAX_MESSAGE_CHARS, sendMessage } from '@/lib/chat/service';
import { readJson } from '@/lib/http/json';
import { eventStreamResponse } from '@/lib/server/events-response';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const messageSchema = z.object({ text: z.string({ error: 'must be a string' }) }).strict();
/** A little over the text limit, for JSON escaping; the text's own limit is checked with a clearer message. */
const MAX_MESSAGE_BODY_BYTES = 4 * MAX_MESSAGE_CHARS + 1024;

/** Starts a turn. `Accept: text/event-stream` answers with the turn's events; else 202. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const { text } = await readJson(req, messageSchema, { maxBytes: MAX_MESSAGE_BODY_BYTES });
    const started = await sendMessage(rt, { userId: session.user.id, sessionId: session.sessionId }, id, text);
    if (req.headers.get('accept')?.includes('text/event-stream')) {
      return eventStreamResponse(rt, session, id, started.afterSeq, req.signal);
    }
    return Response.json(started, { status: 202 });
  },
  { write: true },
);
