import { appOrigin } from '@/lib/http/origin';
import { createInvitation } from '@/lib/orgs/invitations';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** A one-time invitation link (`201 { url, expiresAt }`), shown this once; owner or admin. */
export const POST = authed<P>(
  async ({ req, params, session, rt }) =>
    Response.json(await createInvitation(rt.handle.db, requireUuid(params.id, 'organization'), session.user.id, appOrigin(req)), {
      status: 201,
      headers: { 'Cache-Control': 'no-store' },
    }),
  { write: true },
);
