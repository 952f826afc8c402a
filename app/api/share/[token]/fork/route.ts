import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { clientKey } from '@/lib/http/origin';
import { authed } from '@/lib/server/route';
import { SHARED_HEADERS } from '@/lib/share/headers';
import { forkShare } from '@/lib/share/service';

type P = { token: string };

const forkSchema = z.object({}).strict();

/** Continues the shared conversation in the signed-in person's own account. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    await readJson(req, forkSchema, { maxBytes: 1024 });
    const forked = await forkShare(rt, params.token, { userId: session.user.id, address: clientKey(req) });
    return Response.json(forked, { status: 201, headers: SHARED_HEADERS });
  },
  { write: true },
);
