import { listMyOrgs } from '@/lib/orgs/orgs';
import { authed } from '@/lib/server/route';

/** The signed-in person's organizations, each with their role there. */
export const GET = authed(async ({ session, rt }) =>
  Response.json({ orgs: await listMyOrgs(rt.handle.db, session.user.id) }, { headers: { 'Cache-Control': 'no-store' } }),
);
