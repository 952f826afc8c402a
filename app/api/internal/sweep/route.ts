import { timingSafeEqual } from 'node:crypto';

import { resumeLapsedRuns } from '@/lib/agent/engine';
import { pruneAudit } from '@/lib/audit/retention';
import { AppError, errorResponse } from '@/lib/http/errors';
import { getRuntime } from '@/lib/server/runtime';

/**
 * For a scheduler: takes over runs whose instance died, and prunes audit entries past their
 * retention (AUDIT_RETENTION_DAYS). Needs `Authorization: Bearer $SWEEP_TOKEN`;
 * without SWEEP_TOKEN configured the route is off.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const token = process.env.SWEEP_TOKEN;
    if (!token) throw new AppError('not_found', 'sweep', 'The sweep endpoint is off: set SWEEP_TOKEN to enable it.');
    const given = Buffer.from(req.headers.get('authorization')?.replace(/^Bearer /, '') ?? '');
    const expected = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AppError('unauthorized', 'sweep', 'A valid sweep token is required.');
    }
    const rt = await getRuntime();
    const resumed = await resumeLapsedRuns(rt.engine);
    const audit = await pruneAudit(rt.handle.db, await rt.engine.auditKeys());
    return Response.json({ resumed, auditPruned: { users: audit.users, entries: audit.entries, brokenChains: audit.broken.length } });
  } catch (err) {
    return errorResponse(err);
  }
}
