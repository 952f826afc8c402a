import { z } from 'zod';

import { continueAnswer } from '@/lib/chat/continue';
import { MAX_MESSAGE_BODY_BYTES, messageRequestSchema } from '@/lib/chat/message-request';
import { pageLimitParam } from '@/lib/chat/path-page';
import { assertOwned, earlierMessages, sendMessage } from '@/lib/chat/service';
import { readJson } from '@/lib/http/json';
import { readQuery } from '@/lib/http/query';
import { eventStreamResponse } from '@/lib/server/events-response';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const earlierPageQuery = z.object({ before: z.string({ error: 'give the id of the first message the page has.' }), limit: pageLimitParam });

/** `?before=<message id>[&limit=]`: the page of the path before a message the page already has (lib/chat/path-page.ts). */
export const GET = authed<P>(async ({ req, rt, session, params }) => {
  const id = requireUuid(params.id, 'conversation');
  // Another person's conversation is not found, whatever the query says.
  await assertOwned(rt, session.user.id, id);
  const { before, limit } = readQuery(req.url, earlierPageQuery);
  return Response.json(await earlierMessages(rt, session.user.id, id, requireUuid(before, 'message'), limit));
});

/** Starts a turn (or continues a cut answer: `{ continue: true }`). `Accept: text/event-stream`: the turn's events; else 202. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const {
      text,
      prompt,
      attachments,
      parentId,
      continue: goOn,
    } = await readJson(req, messageRequestSchema, { maxBytes: MAX_MESSAGE_BODY_BYTES });
    const who = { userId: session.user.id, sessionId: session.sessionId };
    const started = goOn ? await continueAnswer(rt, who, id) : await sendMessage(rt, who, id, text, { prompt, attachments, parentId });
    if (req.headers.get('accept')?.includes('text/event-stream')) {
      return eventStreamResponse(rt, session, id, started.afterSeq, req.signal);
    }
    return Response.json(started, { status: 202 });
  },
  { write: true },
);
