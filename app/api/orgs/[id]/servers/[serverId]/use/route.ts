import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { stopUsingSharedServer, useSharedServer } from '@/lib/servers/org-servers';

type P = { id: string; serverId: string };

/** A member turns an optional shared server on: their own row of it, with Connect when it signs in per person. */
export const POST = authed<P>(
  async ({ params, session, rt }) => {
    const orgId = requireUuid(params.id, 'organization');
    const id = requireUuid(params.serverId, 'org_server');
    return Response.json({ server: await useSharedServer(await serversContext(rt), session.user.id, orgId, id) }, { status: 201 });
  },
  { write: true },
);

/** A member turns an optional shared server off (a required one stays on). */
export const DELETE = authed<P>(
  async ({ params, session, rt }) => {
    const orgId = requireUuid(params.id, 'organization');
    await stopUsingSharedServer(await serversContext(rt), session.user.id, orgId, requireUuid(params.serverId, 'org_server'));
    return new Response(null, { status: 204 });
  },
  { write: true },
);
