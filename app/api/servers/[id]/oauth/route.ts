import { authed, requireUuid } from '@/lib/server/route';
import { serversOAuthContext } from '@/lib/server/servers';
import { disconnectServer } from '@/lib/servers/oauth';

type P = { id: string };

/** Disconnect: revokes the credential at the provider when it offers revocation, then forgets it. */
export const DELETE = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'server');
    return Response.json(await disconnectServer(await serversOAuthContext(rt, req), session.user.id, id));
  },
  { write: true },
);
