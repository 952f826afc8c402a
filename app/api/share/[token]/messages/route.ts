import { z } from 'zod';

import { pageLimitParam } from '@/lib/chat/path-page';
import { clientKey } from '@/lib/http/origin';
import { readQuery } from '@/lib/http/query';
import { maybeAuthed, requireUuid } from '@/lib/server/route';
import { SHARED_HEADERS } from '@/lib/share/headers';
import { openSharedMessages } from '@/lib/share/service';

type P = { token: string };

const sharePageQuery = z.object({ after: z.string({ error: "give the id of the page's `next` message." }), limit: pageLimitParam });

/** `?after=<message id>[&limit=]`: the shared snapshot's page after a message the reader's page has (its `next`). */
export const GET = maybeAuthed<P>(
  async ({ req, rt, session, params }) => {
    const { after, limit } = readQuery(req.url, sharePageQuery);
    const page = { after: requireUuid(after, 'message'), limit };
    return Response.json(await openSharedMessages(rt, params.token, session && { userId: session.user.id }, clientKey(req), page));
  },
  { headers: SHARED_HEADERS },
);
