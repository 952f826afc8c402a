import { z } from 'zod';

import { THINKING_EFFORTS } from '@/db/vocabulary';
import { remove, rename, setInstructions, setModel, setThinking, view } from '@/lib/chat/service';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

import { conversationTitle } from '../title';

type P = { id: string };

const patchSchema = z
  .object({
    title: conversationTitle.optional(),
    thinking: z
      .object({
        enabled: z.boolean({ error: 'must be true or false' }),
        budgetTokens: z.number({ error: 'must be a number of tokens' }).optional(),
        effort: z.enum(THINKING_EFFORTS, { error: `must be one of ${THINKING_EFFORTS.join(', ')}` }).optional(),
      })
      .strict()
      .optional(),
    model: z.string({ error: 'must be the id of a listed model (GET /api/models)' }).min(1, 'must not be empty').max(200).optional(),
    // Its length is checked in lib/instructions.ts, in characters.
    instructions: z.string({ error: 'must be text (send "" to clear the instructions)' }).optional(),
  })
  .strict()
  .refine((b) => b.title !== undefined || b.thinking !== undefined || b.model !== undefined || b.instructions !== undefined, {
    error: 'send a title, a thinking setting, a model or instructions',
  });

export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json(await view(rt, session.user.id, requireUuid(params.id, 'conversation'))),
);

export const PATCH = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    // Room for 4,000 characters of instructions at four bytes each, escaped.
    const { title, thinking, model, instructions } = await readJson(req, patchSchema, { maxBytes: 32 * 1024 });
    // At least one (the schema says so); the answer is the conversation after all of them.
    let changed = model !== undefined ? await setModel(rt, session.user.id, id, model) : null;
    if (thinking) changed = await setThinking(rt, session.user.id, id, thinking);
    if (instructions !== undefined) changed = await setInstructions(rt, session.user.id, id, instructions);
    if (title !== undefined) changed = await rename(rt, session.user.id, id, title);
    return Response.json(changed);
  },
  { write: true },
);

export const DELETE = authed<P>(
  async ({ rt, session, params }) => {
    await remove(rt, session.user.id, requireUuid(params.id, 'conversation'));
    return new Response(null, { status: 204 });
  },
  { write: true },
);
