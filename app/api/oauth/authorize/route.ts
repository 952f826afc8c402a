import { z } from 'zod';

import { resolveProfile } from '@/lib/gateway/profile';
import { AppError } from '@/lib/http/errors';
import { readJson } from '@/lib/http/json';
import { appOrigin } from '@/lib/http/origin';
import { AUTHORIZE_PARAMS, authorizeParams, decideAuthorization } from '@/lib/oauth-server/authorize';
import { authed } from '@/lib/server/route';

const schema = z
  .object({
    decision: z.enum(['allow', 'deny'], { error: 'must be "allow" or "deny"' }),
    tools: z.array(z.string().max(200)).max(500, 'must list at most 500 tools').default([]),
    // The exposed servers' resources and prompts too (lib/gateway/content.ts); off unless the person ticked it.
    content: z.boolean({ error: 'must be true or false' }).default(false),
    params: z.partialRecord(z.enum(AUTHORIZE_PARAMS), z.string().max(4000)),
  })
  .strict();

/**
 * The consent screen's Allow / Deny (app/oauth/authorize): a session from our own pages only
 * (`authed` checks the Origin), so another site cannot make a signed-in browser consent. The
 * authorization request is checked again here; `{ redirectTo }` is where the browser goes next.
 */
export const POST = authed(
  async ({ req, session, rt }) => {
    const { decision, tools, content, params } = await readJson(req, schema, { maxBytes: 64 * 1024 });
    const outcome = await decideAuthorization(
      { db: rt.handle.db },
      session.user.id,
      authorizeParams(params),
      appOrigin(req),
      decision === 'allow'
        ? {
            allow: true,
            profile: async () => ({
              ...(await resolveProfile({ db: rt.handle.db, host: rt.tools.host }, session.user, tools)),
              ...(content && { content }),
            }),
          }
        : { allow: false },
    );
    if ('error' in outcome) throw new AppError('bad_request', 'oauth_request', outcome.error);
    return Response.json(outcome, { headers: { 'Cache-Control': 'no-store' } });
  },
  { write: true },
);
