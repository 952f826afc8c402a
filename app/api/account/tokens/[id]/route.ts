import { revokeAccessToken } from '@/lib/account/access-tokens';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** Revokes one of the person's tokens at once; another person's token is 404. */
export const DELETE = authed<P>(
  async ({ params, session, rt }) =>
    Response.json(await revokeAccessToken(rt.handle.db, session.user.id, requireUuid(params.id, 'access_token'))),
  { write: true },
);
