import { z } from 'zod';

import { CLIENT_DECISION_KINDS } from '@/db/vocabulary';
import { approvalView, decideClientCall } from '@/lib/gateway/approvals';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const decisionSchema = z
  .object({
    decision: z.enum(CLIENT_DECISION_KINDS, { error: `must be one of ${CLIENT_DECISION_KINDS.join(', ')}` }),
    argsHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be the 64-character hex hash shown with the call'),
  })
  .strict();

/** Allow once or deny one waiting call of the person's MCP clients; the client's waiting request then completes. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const body = await readJson(req, decisionSchema, { maxBytes: 4 * 1024 });
    const id = requireUuid(params.id, 'client call');
    const row = await decideClientCall({ db: rt.handle.db, bus: rt.bus }, session.user.id, id, { ...body, via: 'web' });
    return Response.json({ call: approvalView(row), status: row.status });
  },
  { write: true },
);
