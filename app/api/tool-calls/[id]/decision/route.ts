import { decide, decisionSchema } from '@/lib/chat/decisions';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** Approve (once / for the session), edit-then-approve, or deny one pending tool call. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const body = await readJson(req, decisionSchema, { maxBytes: 256 * 1024 });
    return Response.json(await decide(rt, session.user.id, requireUuid(params.id, 'tool call'), body));
  },
  { write: true },
);
