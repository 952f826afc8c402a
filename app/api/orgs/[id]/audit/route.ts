import { AppError } from '@/lib/http/errors';
import { orgAudit } from '@/lib/orgs/admin';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The members' tool calls, metadata only (server, tool, outcome, time), newest first; `?before=<next of the page before>` pages. */
export const GET = authed<P>(async ({ req, params, session, rt }) => {
  const before = new URL(req.url).searchParams.get('before') ?? undefined;
  if (before !== undefined && !UUID.test(before)) {
    throw new AppError('bad_request', 'audit', "before: must be the previous page's `next` (an entry id).", 'before');
  }
  return Response.json(await orgAudit(rt.handle.db, requireUuid(params.id, 'organization'), session.user.id, { before }));
});
