import { conversationResources } from '@/lib/chat/offers';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** The resources and resource templates the person's servers offer (the composer's `@` picker). */
export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json(await conversationResources(rt, session.user.id, requireUuid(params.id, 'conversation'))),
);
