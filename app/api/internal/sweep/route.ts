import { resumeLapsedRuns } from '@/lib/agent/engine';
import { pruneAudit } from '@/lib/audit/retention';
import { requireBearerToken } from '@/lib/http/bearer';
import { errorResponse } from '@/lib/http/errors';
import { getRuntime } from '@/lib/server/runtime';

/**
 * For a scheduler: takes over runs whose instance died, and prunes audit entries past their
 * retention (AUDIT_RETENTION_DAYS). Needs `Authorization: Bearer $SWEEP_TOKEN`;
 * without SWEEP_TOKEN configured the route is off.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    requireBearerToken(req, { variable: 'SWEEP_TOKEN', surface: 'sweep', what: 'sweep' });
    const rt = await getRuntime();
    const resumed = await resumeLapsedRuns(rt.engine);
    const audit = await pruneAudit(rt.handle.db, await rt.engine.auditKeys());
    return Response.json({ resumed, auditPruned: { users: audit.users, entries: audit.entries, brokenChains: audit.broken.length } });
  } catch (err) {
    return errorResponse(err);
  }
}
