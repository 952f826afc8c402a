import { z } from 'zod';

import { showBranch } from '@/lib/chat/service';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const activeSchema = z.object({ leafId: z.uuid({ error: 'must be the id of a message of this conversation' }) }).strict();

/** Shows the branch through `leafId` (its newest leaf becomes the active one); answers the conversation's view of it. */
export const PUT = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const { leafId } = await readJson(req, activeSchema);
    return Response.json(await showBranch(rt, session.user.id, id, leafId));
  },
  { write: true },
);
