import { AppError } from '@/lib/http/errors';
import { orgAudit } from '@/lib/orgs/admin';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** The members' tool calls, metadata only (server, tool, outcome, time), newest first; `?before=<time>` pages. */
export const GET = authed<P>(async ({ req, params, session, rt }) => {
  const raw = new URL(req.url).searchParams.get('before');
  const before = raw === null ? undefined : new Date(raw);
  if (before && Number.isNaN(before.getTime())) {
    throw new AppError('bad_request', 'audit', 'before: must be a time like 2026-12-06T10:00:00.000Z.', 'before');
  }
  return Response.json(await orgAudit(rt.handle.db, requireUuid(params.id, 'organization'), session.user.id, before));
});
