import { readJson } from '@/lib/http/json';
import { createOrg, createOrgSchema, listMyOrgs } from '@/lib/orgs/orgs';
import { authed } from '@/lib/server/route';

/** The signed-in person's organizations, each with their role there. */
export const GET = authed(async ({ session, rt }) =>
  Response.json({ orgs: await listMyOrgs(rt.handle.db, session.user.id) }, { headers: { 'Cache-Control': 'no-store' } }),
);

/** `{ name }`: a new organization with the caller as its owner; people join it by invitation. */
export const POST = authed(
  async ({ req, session, rt }) => {
    const input = await readJson(req, createOrgSchema, { maxBytes: 1024 });
    return Response.json(await createOrg(rt.handle.db, session.user.id, input), { status: 201 });
  },
  { write: true },
);
