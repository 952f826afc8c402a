import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { listServersWithShared } from '@/lib/servers/org-servers';
import { addServer } from '@/lib/servers/service';

// Fields are checked one by one in lib/servers/fields.ts, with messages naming each.
const anyBody = z.unknown();

export const GET = authed(async ({ rt, session }) => Response.json(await listServersWithShared(await serversContext(rt), session.user.id)));

export const POST = authed(
  async ({ req, rt, session }) => {
    const body = await readJson(req, anyBody, { maxBytes: 64 * 1024 });
    const server = await addServer(await serversContext(rt), session.user.id, body);
    return Response.json({ server }, { status: 201 });
  },
  { write: true },
);
