import { pendingClientCalls } from '@/lib/gateway/approvals';
import { authed } from '@/lib/server/route';

/** The "Other clients" inbox: the person's MCP clients' calls that wait for their decision, oldest first. */
export const GET = authed(async ({ rt, session }) => {
  return Response.json({ calls: await pendingClientCalls(rt.handle.db, session.user.id) });
});
