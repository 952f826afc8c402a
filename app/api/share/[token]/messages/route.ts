import { pageLimitOf } from '@/lib/chat/path-page';
import { AppError } from '@/lib/http/errors';
import { clientKey } from '@/lib/http/origin';
import { maybeAuthed, requireUuid } from '@/lib/server/route';
import { SHARED_HEADERS } from '@/lib/share/headers';
import { openSharedMessages } from '@/lib/share/service';

type P = { token: string };

/** `?after=<message id>[&limit=]`: the shared snapshot's page after a message the reader's page has (its `next`). */
export const GET = maybeAuthed<P>(
  async ({ req, rt, session, params }) => {
    const query = new URL(req.url).searchParams;
    const after = query.get('after');
    if (after === null) throw new AppError('bad_request', 'query', "after: give the id of the page's `next` message.", 'after');
    const page = { after: requireUuid(after, 'message'), limit: pageLimitOf(query) };
    return Response.json(await openSharedMessages(rt, params.token, session && { userId: session.user.id }, clientKey(req), page));
  },
  { headers: SHARED_HEADERS },
);
