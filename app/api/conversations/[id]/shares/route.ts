import { z } from 'zod';

import { SHARE_AUDIENCES, SHARE_EXPIRIES } from '@/db/vocabulary';
import { readJson } from '@/lib/http/json';
import { appOrigin } from '@/lib/http/origin';
import { authed, requireUuid } from '@/lib/server/route';
import { createShare, listConversationShares } from '@/lib/share/service';

type P = { id: string };

const createSchema = z
  .object({
    includeToolDetails: z.boolean({ error: 'must be true (show tool arguments and results) or false (hide them)' }).default(false),
    includeFiles: z.boolean({ error: 'must be true (show the attached files) or false (hide them)' }).default(false),
    audience: z.enum(SHARE_AUDIENCES, { error: `must be one of ${SHARE_AUDIENCES.join(', ')}` }).default('anyone'),
    expiresIn: z.enum(SHARE_EXPIRIES, { error: `must be one of ${SHARE_EXPIRIES.join(', ')}` }).default('never'),
  })
  .strict();

/** The conversation's share links (never their tokens). */
export const GET = authed<P>(async ({ rt, session, params }) =>
  Response.json({ links: await listConversationShares(rt, session.user.id, requireUuid(params.id, 'conversation')) }),
);

/** A new link to the conversation up to its last finished turn; the answer carries the URL this once. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'conversation');
    const options = await readJson(req, createSchema, { maxBytes: 4 * 1024 });
    return Response.json(await createShare(rt, session.user.id, id, options, appOrigin(req)), {
      status: 201,
      headers: { 'Cache-Control': 'no-store' },
    });
  },
  { write: true },
);
