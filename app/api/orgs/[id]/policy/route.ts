import { readJson } from '@/lib/http/json';
import { policySchema, readOrgPolicy, writeOrgPolicy } from '@/lib/orgs/policy';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** The organization's policy (owners and admins); the default when it set none. */
export const GET = authed<P>(async ({ params, session, rt }) =>
  Response.json({ policy: await readOrgPolicy(rt.handle.db, requireUuid(params.id, 'organization'), session.user.id) }),
);

/** Replaces the policy; it applies at the next step of every member's running conversations. */
export const PUT = authed<P>(
  async ({ req, params, session, rt }) => {
    const input = await readJson(req, policySchema, { maxBytes: 64 * 1024 });
    const orgId = requireUuid(params.id, 'organization');
    return Response.json({ policy: await writeOrgPolicy(rt.handle.db, orgId, session.user.id, input) });
  },
  { write: true },
);
