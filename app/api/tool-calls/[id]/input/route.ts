import { z } from 'zod';

import { inputResponse } from '@/db/stored-json';
import { INPUT_RESPONSE_ACTIONS } from '@/db/vocabulary';
import { answer } from '@/lib/chat/decisions';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const inputSchema = z
  .object({
    responses: z.record(z.string(), inputResponse, {
      error: `must map each asked key to { action: ${INPUT_RESPONSE_ACTIONS.join(' | ')}, content? }`,
    }),
    round: z.number({ error: "must be the call's inputRound, the question this answers" }).int().nonnegative().optional(),
  })
  .strict();

/**
 * Answers a server's elicitation: `{ responses: { <key>: { action, content? } }, round }` — `round`
 * the call's `inputRound` as shown: an answer to an earlier question is a 409 (lib/agent/answer-input.ts).
 * `round` may be left out only for a question no earlier one can be mistaken for (a card loaded
 * from an event stored before rounds existed shows none); otherwise that is a 409 too.
 */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const body = await readJson(req, inputSchema, { maxBytes: 256 * 1024 });
    return Response.json(await answer(rt, session.user.id, requireUuid(params.id, 'tool call'), body));
  },
  { write: true },
);
