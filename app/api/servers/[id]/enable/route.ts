import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { enableServerTools } from '@/lib/servers/service';

type P = { id: string };

/** The tools the person reviewed, each with the fingerprint they saw. */
const enableSchema = z.strictObject({
  tools: z.record(z.string().min(1).max(256), z.string().regex(/^[0-9a-f]{64}$/, 'must be a tool fingerprint')),
});

export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'server');
    const { tools } = await readJson(req, enableSchema, { maxBytes: 128 * 1024 });
    return Response.json({ server: await enableServerTools(await serversContext(rt), session.user.id, id, tools) });
  },
  { write: true },
);
