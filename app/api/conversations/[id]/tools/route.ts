import { conversationToolsView } from '@/lib/consent/tools-view';
import { consentDeps } from '@/lib/server/consent';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** The conversation's Tools panel for this session: every tool, where it stands, and what the model is offered next. */
export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json(
    await conversationToolsView(consentDeps(rt), {
      userId: session.user.id,
      sessionId: session.sessionId,
      conversationId: requireUuid(params.id, 'conversation'),
    }),
  ),
);
