import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { refreshServer } from '@/lib/servers/service';

type P = { id: string };

export const POST = authed<P>(
  async ({ rt, session, params }) =>
    Response.json({ server: await refreshServer(await serversContext(rt), session.user.id, requireUuid(params.id, 'server')) }),
  { write: true },
);
