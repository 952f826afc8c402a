import { authed } from '@/lib/server/route';
import { resumeSignedIn, serversOAuthContext } from '@/lib/server/servers';
import { finishServerSignIn } from '@/lib/servers/oauth';

/**
 * Where the provider sends the browser back. The one GET that writes: it only completes a flow
 * whose single-use state this signed-in user started in this session (lib/mcp/oauth/flows.ts),
 * then redirects to the page the person came from (a same-origin path) with `oauth=connected`,
 * or to the servers page with `oauth=failed` and the reason code (the page words it).
 */
export const GET = authed(async ({ req, rt, session }) => {
  const ctx = await serversOAuthContext(rt, req);
  const params = new URL(req.url).searchParams;
  const { location } = await finishServerSignIn(ctx, { userId: session.user.id, sessionId: session.sessionId }, params, resumeSignedIn(rt));
  return new Response(null, {
    status: 303,
    headers: { location: new URL(location, ctx.appOrigin).href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  });
});
