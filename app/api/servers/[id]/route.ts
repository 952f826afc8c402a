import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { editServer, removeServer } from '@/lib/servers/service';

type P = { id: string };

export const PATCH = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'server');
    const body = await readJson(req, z.unknown(), { maxBytes: 64 * 1024 });
    return Response.json({ server: await editServer(await serversContext(rt), session.user.id, id, body) });
  },
  { write: true },
);

export const DELETE = authed<P>(
  async ({ rt, session, params }) => {
    await removeServer(await serversContext(rt), session.user.id, requireUuid(params.id, 'server'));
    return new Response(null, { status: 204 });
  },
  { write: true },
);
