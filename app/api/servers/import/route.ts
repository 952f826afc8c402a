import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed } from '@/lib/server/route';
import { serversContext } from '@/lib/server/servers';
import { importServers } from '@/lib/servers/service';

/** The body is the configuration file itself (Claude Desktop `mcpServers` or VS Code `servers`). */
export const POST = authed(
  async ({ req, rt, session }) => {
    const config = await readJson(req, z.unknown(), { maxBytes: 256 * 1024 });
    return Response.json(await importServers(await serversContext(rt), session.user.id, config));
  },
  { write: true },
);
