import { requireBearerToken } from '@/lib/http/bearer';
import { errorResponse } from '@/lib/http/errors';
import { sweep } from '@/lib/ops/sweep';
import { getRuntime } from '@/lib/server/runtime';

/**
 * For a scheduler: takes over runs whose instance died, prunes audit entries past their
 * retention (AUDIT_RETENTION_DAYS) and long-expired share links, ends idle MCP sessions. Needs
 * `Authorization: Bearer $SWEEP_TOKEN`; without SWEEP_TOKEN configured the route is off.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    requireBearerToken(req, { variable: 'SWEEP_TOKEN', surface: 'sweep', what: 'sweep' });
    const rt = await getRuntime();
    const done = await sweep(rt.engine, rt.handle.db, await rt.engine.auditKeys());
    return Response.json({
      resumed: done.resumed,
      auditPruned: { users: done.audit.users, entries: done.audit.entries, brokenChains: done.audit.broken.length },
      expiredShareLinksPruned: done.expiredShareLinks,
      idleMcpSessionsEnded: done.idleSessions.forgotten,
      draftFilesDeleted: done.files.draftFiles,
    });
  } catch (err) {
    return errorResponse(err);
  }
}
