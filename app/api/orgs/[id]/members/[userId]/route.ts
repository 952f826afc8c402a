import { readJson } from '@/lib/http/json';
import { changeRole, setRoleSchema } from '@/lib/orgs/orgs';
import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { removeOrgMember } from '@/lib/servers/org-servers';

type P = { id: string; userId: string };

/** `{ role }` for one member: owners set any role, admins set admin or member of non-owners, members none. */
export const PATCH = authed<P>(
  async ({ req, params, session, rt }) => {
    const { role } = await readJson(req, setRoleSchema, { maxBytes: 1024 });
    const orgId = requireUuid(params.id, 'organization');
    return Response.json(await changeRole(rt.handle.db, orgId, session.user.id, requireUuid(params.userId, 'member'), role));
  },
  { write: true },
);

/** Removes a member: owners remove anyone, admins remove admins and members; never the last owner. */
export const DELETE = authed<P>(
  async ({ params, session, rt }) => {
    const orgId = requireUuid(params.id, 'organization');
    const ctx = await serversContext(rt);
    // Their rows of the organization's shared servers go, and what those found (OAuth sign-ins) is forgotten.
    return Response.json(await removeOrgMember(ctx, orgId, session.user.id, requireUuid(params.userId, 'member')));
  },
  { write: true },
);
