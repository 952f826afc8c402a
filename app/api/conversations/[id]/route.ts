import { z } from 'zod';

import { remove, rename, view } from '@/lib/chat/service';
import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';

import { conversationTitle } from '../title';

type P = { id: string };

const renameSchema = z.object({ title: conversationTitle }).strict();

export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json(await view(rt, session.user.id, requireUuid(params.id, 'conversation'))),
);

export const PATCH = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const { title } = await readJson(req, renameSchema, { maxBytes: 8 * 1024 });
    return Response.json(await rename(rt, session.user.id, id, title));
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
