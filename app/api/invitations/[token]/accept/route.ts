import { acceptInvitationToken } from '@/lib/orgs/invitations';
import { authed } from '@/lib/server/route';

type P = { token: string };

/** Joins the signed-in person to the inviting organization as a member; the link then works no more. */
export const POST = authed<P>(
  async ({ params, session, rt }) => Response.json(await acceptInvitationToken(rt.handle.db, params.token, session.user.id)),
  { write: true },
);
