import { orgUsage } from '@/lib/orgs/admin';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** Turns, model tokens and tool calls per member over the last 30 days (owners and admins). */
export const GET = authed<P>(async ({ params, session, rt }) =>
  Response.json(await orgUsage(rt.handle.db, requireUuid(params.id, 'organization'), session.user.id)),
);
