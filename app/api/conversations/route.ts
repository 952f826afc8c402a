import { z } from 'zod';

import { create, listForUser } from '@/lib/chat/service';
import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';

import { conversationTitle } from './title';

const createConversationSchema = z.object({ title: conversationTitle.optional(), model: z.string().max(200).optional() }).strict();

export const GET = authed(async ({ rt, session }) => Response.json({ conversations: await listForUser(rt, session.user.id) }));

export const POST = authed(
  async ({ req, rt, session }) => {
    const input = await readJson(req, createConversationSchema, { maxBytes: 8 * 1024 });
    return Response.json(await create(rt, session.user.id, input), { status: 201 });
  },
  { write: true },
);
