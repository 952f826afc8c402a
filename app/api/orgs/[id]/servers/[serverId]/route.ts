import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { editOrgServer, removeOrgServer } from '@/lib/servers/org-servers';

type P = { id: string; serverId: string };

const anyBody = z.unknown();

/** Name, required, trust, or a new shared credential (owners and admins). */
export const PATCH = authed<P>(
  async ({ req, params, session, rt }) => {
    const orgId = requireUuid(params.id, 'organization');
    const id = requireUuid(params.serverId, 'org_server');
    const body = await readJson(req, anyBody, { maxBytes: 64 * 1024 });
    return Response.json({ server: await editOrgServer(await serversContext(rt), orgId, session.user.id, id, body) });
  },
  { write: true },
);

/** Removes it: every member's use of it ends. */
export const DELETE = authed<P>(
  async ({ params, session, rt }) => {
    const orgId = requireUuid(params.id, 'organization');
    await removeOrgServer(await serversContext(rt), orgId, session.user.id, requireUuid(params.serverId, 'org_server'));
    return new Response(null, { status: 204 });
  },
  { write: true },
);
