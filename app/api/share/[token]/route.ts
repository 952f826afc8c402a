import { clientKey } from '@/lib/http/origin';
import { maybeAuthed } from '@/lib/server/route';
import { SHARED_HEADERS } from '@/lib/share/headers';
import { openShare } from '@/lib/share/service';

type P = { token: string };

/** The shared snapshot with exactly the page's redactions; no session needed unless the owner asked for one. */
export const GET = maybeAuthed<P>(
  async ({ req, rt, session, params }) =>
    Response.json(await openShare(rt, params.token, session && { userId: session.user.id }, clientKey(req))),
  { headers: SHARED_HEADERS },
);
