import { conversationPrompts } from '@/lib/chat/offers';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** The prompts the person's servers offer (the composer's `/` menu): names, descriptions, arguments. */
export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json(await conversationPrompts(rt, session.user.id, requireUuid(params.id, 'conversation'))),
);
