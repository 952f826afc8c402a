import { z } from 'zod';

import { regenerate } from '@/lib/chat/branches';
import { readJson } from '@/lib/http/json';
import { eventStreamResponse } from '@/lib/server/events-response';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const regenerateSchema = z
  .object({ messageId: z.uuid({ error: 'must be the id of an answer (an assistant message) of this conversation' }) })
  .strict();

/**
 * A new answer in place of `messageId`, as its sibling (lib/chat/branches.ts): a turn like
 * POST …/messages starts. `Accept: text/event-stream`: the turn's events; else 202.
 */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const { messageId } = await readJson(req, regenerateSchema);
    const started = await regenerate(rt, { userId: session.user.id, sessionId: session.sessionId }, id, messageId);
    if (req.headers.get('accept')?.includes('text/event-stream')) {
      return eventStreamResponse(rt, session, id, started.afterSeq, req.signal);
    }
    return Response.json(started, { status: 202 });
  },
  { write: true },
);
