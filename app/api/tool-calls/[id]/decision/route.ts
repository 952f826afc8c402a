import { z } from 'zod';

import { DECISION_KINDS } from '@/db/vocabulary';
import { decide } from '@/lib/chat/decisions';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const decisionSchema = z
  .object({
    decision: z.enum(DECISION_KINDS, { error: `must be one of ${DECISION_KINDS.join(', ')}` }),
    argsHash: z.string().regex(/^[0-9a-f]{64}$/, 'must be the 64-character hex hash shown with the call'),
    reason: z.string().max(1000, 'must be at most 1000 characters').optional(),
    input: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
    // With allow_session: a JSON Schema fragment later calls' arguments must also meet.
    constraint: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }).optional(),
  })
  .strict();

/** Approve (once / for the session), edit-then-approve, or deny one pending tool call. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const body = await readJson(req, decisionSchema, { maxBytes: 256 * 1024 });
    const id = requireUuid(params.id, 'tool call');
    return Response.json(await decide(rt, session.user.id, id, { ...body, sessionId: session.sessionId }));
  },
  { write: true },
);
