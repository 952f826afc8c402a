import { z } from 'zod';

import { AUDIT_OUTCOMES } from '@/db/vocabulary';
import { activityPage, exportStream, MAX_ACTIVITY_PAGE } from '@/lib/audit/activity';
import { readQuery } from '@/lib/http/query';
import { authed } from '@/lib/server/route';

const uuid = z.uuid({ error: 'must be an id (a UUID)' });
const date = z.iso
  .datetime({ offset: true, error: 'must be a date and time in ISO 8601, e.g. 2026-12-01T00:00:00Z' })
  .or(z.iso.date({ error: 'must be a date (YYYY-MM-DD) or an ISO 8601 date and time' }));

const activityQuery = z.strictObject(
  {
    conversation: uuid.optional(),
    server: z.string().min(1).max(200).optional(),
    tool: z.string().min(1).max(200).optional(),
    outcome: z.enum(AUDIT_OUTCOMES, { error: `must be one of ${AUDIT_OUTCOMES.join(', ')}` }).optional(),
    toolCall: uuid.optional(),
    from: date.optional(),
    to: date.optional(),
    cursor: z
      .string()
      .regex(/^\d{1,15}$/, { error: 'must be the nextCursor of the previous page' })
      .optional(),
    limit: z.coerce
      .number({ error: 'must be a number' })
      .int()
      .min(1)
      .max(MAX_ACTIVITY_PAGE, { error: `must be 1 to ${MAX_ACTIVITY_PAGE}` })
      .optional(),
    format: z.enum(['json', 'jsonl'], { error: 'must be json or jsonl' }).optional(),
  },
  { error: 'unknown parameter: use conversation, server, tool, outcome, toolCall, from, to, cursor, limit or format' },
);

/** A date alone means the whole day: `to=2026-12-01` includes that day. */
function dateOf(value: string | undefined, end: boolean): Date | undefined {
  if (!value) return undefined;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`) : new Date(value);
}

/** The person's audit log, newest first, filtered and paged; `?format=jsonl` downloads all of it with the chain head last. */
export const GET = authed(async ({ req, rt, session }) => {
  const q = readQuery(req.url, activityQuery);
  const userId = session.user.id;
  if (q.format === 'jsonl') {
    return new Response(exportStream(rt.handle.db, userId), {
      headers: {
        'Content-Type': 'application/jsonl; charset=utf-8',
        'Content-Disposition': `attachment; filename="switchboard-activity-${new Date().toISOString().slice(0, 10)}.jsonl"`,
        'Cache-Control': 'no-store',
      },
    });
  }
  const filter = {
    conversationId: q.conversation,
    serverId: q.server,
    tool: q.tool,
    outcome: q.outcome,
    toolCallId: q.toolCall,
    from: dateOf(q.from, false),
    to: dateOf(q.to, true),
    beforeSeq: q.cursor ? Number(q.cursor) : undefined,
  };
  return Response.json(await activityPage(rt.handle.db, userId, filter, q.limit), { headers: { 'Cache-Control': 'no-store' } });
});
