import { stop } from '@/lib/chat/service';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

export const POST = authed<P>(
  async ({ rt, session, params }) =>
    Response.json(await stop(rt, session.user.id, requireUuid(params.id, 'conversation')), { status: 202 }),
  { write: true },
);
