import { z } from 'zod';

import { personalInstructions, setPersonalInstructions } from '@/lib/account/instructions';
import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';

// The length is checked in lib/instructions.ts, in characters; the byte cap leaves room for
// 4,000 of them at four bytes each, escaped.
const putSchema = z.object({ text: z.string({ error: 'must be text (send "" to clear your instructions)' }) }).strict();

/** The person's own instructions for every conversation. */
export const GET = authed(async ({ session, rt }) => Response.json(await personalInstructions(rt.handle.db, session.user.id)));

/** `{ text }` sets them; empty text clears them. */
export const PUT = authed(
  async ({ req, session, rt }) => {
    const { text } = await readJson(req, putSchema, { maxBytes: 32 * 1024 });
    return Response.json(await setPersonalInstructions(rt.handle.db, session.user.id, text));
  },
  { write: true },
);
