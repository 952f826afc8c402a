import { z } from 'zod';

import { MAX_QUERY_CHARS, searchForUser } from '@/lib/chat/search';
import { create, listForUser } from '@/lib/chat/service';
import { AppError } from '@/lib/http/errors';
import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';

import { conversationTitle } from './title';

const createConversationSchema = z.object({ title: conversationTitle.optional(), model: z.string().max(200).optional() }).strict();

/** The person's conversations; with `?q=`, those whose title or messages contain the words. */
export const GET = authed(async ({ req, rt, session }) => {
  const q = new URL(req.url).searchParams.get('q');
  if (q === null) return Response.json({ conversations: await listForUser(rt, session.user.id) });
  if (!q.trim() || q.length > MAX_QUERY_CHARS) {
    throw new AppError('bad_request', 'query', `q: give 1 to ${MAX_QUERY_CHARS} characters to search for (got ${q.length}).`, 'q');
  }
  return Response.json({ conversations: await searchForUser(rt, session.user.id, q) });
});

export const POST = authed(
  async ({ req, rt, session }) => {
    const input = await readJson(req, createConversationSchema, { maxBytes: 8 * 1024 });
    return Response.json(await create(rt, session.user.id, input), { status: 201 });
  },
  { write: true },
);
