import { orgMembers } from '@/lib/orgs/admin';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** The organization's members with their roles (owners and admins). */
export const GET = authed<P>(async ({ params, session, rt }) =>
  Response.json({ members: await orgMembers(rt.handle.db, requireUuid(params.id, 'organization'), session.user.id) }),
);
