import type { Db } from '@/db/connection';
import { auditMetadataOfOrg, findOrgName, getOrgPolicy, listMembers, usageOfMembers } from '@/db/queries/orgs';
import { AppError } from '@/lib/http/errors';

import { MANAGING_ROLES, requireOrgRole } from './access';

/**
 * What the admin pages read (owners and admins only): the members with their roles, their usage,
 * and the audit log's metadata of their tool calls — server, tool, outcome, time; never arguments
 * or results, which stay the member's own (the query does not select them).
 */

export async function orgMembers(db: Db, orgId: string, userId: string) {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'see its members');
  const rows = await listMembers(db, orgId);
  return rows.map((r) => ({ ...r, joinedAt: r.joinedAt.toISOString() }));
}

export const USAGE_DAYS = 30;

export async function orgUsage(db: Db, orgId: string, userId: string, now = new Date()) {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'see its usage');
  const since = new Date(now.getTime() - USAGE_DAYS * 86_400_000);
  return { since: since.toISOString(), days: USAGE_DAYS, members: await usageOfMembers(db, orgId, since) };
}

export const AUDIT_PAGE = 100;

/**
 * One page of the audit view, newest first. `next` is the cursor of the page after (the last
 * entry's id, for `?before=`), null when this one is the last.
 */
export async function orgAudit(db: Db, orgId: string, userId: string, opts: { before?: string; limit?: number } = {}) {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'see its audit log');
  const limit = opts.limit ?? AUDIT_PAGE;
  const rows = await auditMetadataOfOrg(db, orgId, { limit, before: opts.before });
  return {
    entries: rows.map((r) => ({ ...r, at: r.at.toISOString() })),
    next: rows.length === limit ? rows[rows.length - 1]!.id : null,
  };
}

export type OrgAuditPage = Awaited<ReturnType<typeof orgAudit>>;

/** Everything the admin page shows at once (owners and admins; 404 to outsiders, 403 to members). */
export async function orgAdminPage(db: Db, orgId: string, userId: string) {
  if (!UUID.test(orgId)) throw new AppError('not_found', 'organization', `No organization with id "${orgId}".`);
  const role = await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'see its administration');
  const [name, members, policy, usage, audit] = await Promise.all([
    findOrgName(db, orgId),
    orgMembers(db, orgId, userId),
    getOrgPolicy(db, orgId),
    orgUsage(db, orgId, userId),
    orgAudit(db, orgId, userId),
  ]);
  return { id: orgId, name: name ?? 'Organization', role, members, policy, usage, audit };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
