import { z } from 'zod';

import { remove, rename, setThinking, view } from '@/lib/chat/service';
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
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((b) => b.title !== undefined || b.thinking !== undefined, { error: 'send a title or a thinking setting' });

export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json(await view(rt, session.user.id, requireUuid(params.id, 'conversation'))),
);

export const PATCH = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const { title, thinking } = await readJson(req, patchSchema, { maxBytes: 8 * 1024 });
    // At least one of the two (the schema says so); the answer is the conversation after both.
    let changed = thinking ? await setThinking(rt, session.user.id, id, thinking) : null;
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
