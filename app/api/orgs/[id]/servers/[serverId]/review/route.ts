import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { reviewOrgServer } from '@/lib/servers/org-servers';

type P = { id: string; serverId: string };

/** The tools the admin reviewed for every member, each with the fingerprint they saw. */
const reviewSchema = z.strictObject({
  tools: z.record(z.string().min(1).max(256), z.string().regex(/^[0-9a-f]{64}$/, 'must be a tool fingerprint')),
});

export const POST = authed<P>(
  async ({ req, params, session, rt }) => {
    const orgId = requireUuid(params.id, 'organization');
    const id = requireUuid(params.serverId, 'org_server');
    const { tools } = await readJson(req, reviewSchema, { maxBytes: 128 * 1024 });
    return Response.json({ server: await reviewOrgServer(await serversContext(rt), orgId, session.user.id, id, tools) });
  },
  { write: true },
);
