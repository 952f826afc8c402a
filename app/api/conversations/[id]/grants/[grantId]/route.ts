import { revokeGrant } from '@/lib/consent/grants-service';
import { consentDeps } from '@/lib/server/consent';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string; grantId: string };

/** Revoke one grant of this conversation; answers with the conversation's new Tools view. */
export const DELETE = authed<P>(
  async ({ rt, session, params }) =>
    Response.json(
      await revokeGrant(consentDeps(rt), {
        userId: session.user.id,
        sessionId: session.sessionId,
        conversationId: requireUuid(params.id, 'conversation'),
        grantId: requireUuid(params.grantId, 'grant'),
      }),
    ),
  { write: true },
);
