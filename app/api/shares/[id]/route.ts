import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';
import { revokeShare, updateShareSnapshot } from '@/lib/share/service';

type P = { id: string };

const updateSchema = z
  .object({ snapshot: z.literal('latest', { error: 'must be "latest" (move the snapshot to the newest finished turn)' }) })
  .strict();

/** Moves the link's snapshot to the conversation's newest finished turn. */
export const PATCH = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'share');
    await readJson(req, updateSchema, { maxBytes: 1024 });
    return Response.json(await updateShareSnapshot(rt, session.user.id, id));
  },
  { write: true },
);

/** Revokes the link: it is a 404 from now on. */
export const DELETE = authed<P>(
  async ({ rt, session, params }) => {
    await revokeShare(rt, session.user.id, requireUuid(params.id, 'share'));
    return new Response(null, { status: 204 });
  },
  { write: true },
);
