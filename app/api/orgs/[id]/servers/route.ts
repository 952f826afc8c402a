import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { addOrgServer, listOrgServerViews } from '@/lib/servers/org-servers';

type P = { id: string };

// Fields are checked one by one in lib/servers/org-servers.ts, with messages naming each.
const anyBody = z.unknown();

/** The organization's shared servers (owners and admins), never a shared credential's values. */
export const GET = authed<P>(async ({ params, session, rt }) => {
  const orgId = requireUuid(params.id, 'organization');
  return Response.json({ servers: await listOrgServerViews(await serversContext(rt), orgId, session.user.id) });
});

/** Adds a shared server (nothing approved until the admin reviews its tools). */
export const POST = authed<P>(
  async ({ req, params, session, rt }) => {
    const orgId = requireUuid(params.id, 'organization');
    const body = await readJson(req, anyBody, { maxBytes: 64 * 1024 });
    return Response.json({ server: await addOrgServer(await serversContext(rt), orgId, session.user.id, body) }, { status: 201 });
  },
  { write: true },
);
