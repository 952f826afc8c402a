import { answer, inputSchema } from '@/lib/chat/decisions';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** Answers a server's elicitation: `{ responses: { <key>: { action, content? } } }`. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const body = await readJson(req, inputSchema, { maxBytes: 256 * 1024 });
    return Response.json(await answer(rt, session.user.id, requireUuid(params.id, 'tool call'), body));
  },
  { write: true },
);
