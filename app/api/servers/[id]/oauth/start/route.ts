import { z } from 'zod';

import { readJson } from '@/lib/http/json';
import { authed, requireUuid } from '@/lib/server/route';
import { serversOAuthContext } from '@/lib/server/servers';
import { startServerSignIn } from '@/lib/servers/oauth';

type P = { id: string };

// returnTo is checked in lib/servers/oauth.ts (a same-origin path only), with its own message.
const startSchema = z.strictObject({ returnTo: z.unknown().optional() });

/** Connect: starts a sign-in and answers the provider's URL to send the browser to. */
export const POST = authed<P>(
  async ({ req, rt, session, params }) => {
    const id = requireUuid(params.id, 'server');
    const { returnTo } = await readJson(req, startSchema, { maxBytes: 8 * 1024 });
    const ctx = await serversOAuthContext(rt, req);
    const { authorizationUrl } = await startServerSignIn(ctx, { userId: session.user.id, sessionId: session.sessionId }, id, returnTo);
    return Response.json({ authorizationUrl });
  },
  { write: true },
);
