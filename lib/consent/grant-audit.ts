import type { Db } from '@/db/connection';
import { serverNamesOf } from '@/db/queries/audit';
import type { GrantRow } from '@/db/queries/grants';
import type { AuditGrantChange } from '@/db/vocabulary';
import { auditGrantChanges, type GrantChange } from '@/lib/audit/grant-entry';
import type { AuditKeyring } from '@/lib/audit/key';
import { BUILTIN_SERVERS } from '@/lib/mcp/builtin';

import { parseScope, toolScope } from './scopes';

/**
 * What the audit log records of the grant use-cases: a grant written, changed, revoked or ended
 * at sign-out, and a tool's switch turned off or back on. Each is logged in the transaction of
 * the change, after its writes (lib/audit/append.ts: the chain-head lock comes last).
 */
export type GrantEvent =
  | { change: Exclude<AuditGrantChange, 'switched_off' | 'switched_on'>; grant: GrantRow; by: string }
  | {
      change: 'switched_off' | 'switched_on';
      userId: string;
      conversationId: string;
      sessionId: string | null;
      serverId: string;
      tool: string;
      by: string;
    };

export async function auditGrantEvents(tx: Db, keys: AuditKeyring, events: GrantEvent[]): Promise<void> {
  if (!events.length) return;
  const names = await serverNames(tx, events);
  const changes: GrantChange[] = events.map((e) => {
    if ('grant' in e) {
      const g = e.grant;
      const scope = parseScope(g.scope);
      const serverId = scope?.serverId ?? null;
      return {
        userId: g.userId,
        change: e.change,
        scope: g.scope,
        grantId: g.id,
        conversationId: g.conversationId,
        server: serverId ? { id: serverId, name: names.get(serverId) ?? null } : null,
        tool: scope?.kind === 'tool' ? scope.tool : null,
        by: e.by,
        settings: {
          autoApprove: g.autoApprove,
          constraint: g.constraint,
          expiresAt: g.expiresAt?.toISOString() ?? null,
          expiresIn: g.expiresIn,
        },
        sessionId: g.sessionId,
      };
    }
    return {
      userId: e.userId,
      change: e.change,
      scope: toolScope(e.serverId, e.tool),
      grantId: null,
      conversationId: e.conversationId,
      server: { id: e.serverId, name: names.get(e.serverId) ?? null },
      tool: e.tool,
      by: e.by,
      sessionId: e.sessionId,
    };
  });
  await auditGrantChanges(tx, keys, changes);
}

/**
 * What a grant write changed, against the live grant of the same scope it replaced: a new grant,
 * auto-approve switched on or off, a new constraint, or only a new expiry (a renewal).
 */
export function changeOf(before: GrantRow | undefined, after: GrantRow): Exclude<AuditGrantChange, 'switched_off' | 'switched_on'> {
  if (!before) return 'created';
  if (before.autoApprove !== after.autoApprove) return after.autoApprove ? 'auto_approve_on' : 'auto_approve_off';
  if (JSON.stringify(before.constraint) !== JSON.stringify(after.constraint)) return 'constraint';
  return 'expiry';
}

/** The hook that logs the grants a sign-out ended, in the sign-out's transaction (db/queries/auth-sessions.ts). */
export function logGrantsEndedAtSignOut(keys: AuditKeyring): (tx: Db, grants: GrantRow[]) => Promise<void> {
  return (tx, grants) =>
    auditGrantEvents(
      tx,
      keys,
      grants.map((grant) => ({ change: 'ended_at_sign_out', grant, by: grant.userId })),
    );
}

/** Server names for the entries: the built-in ones by id, the person's own from the database. */
async function serverNames(tx: Db, events: GrantEvent[]): Promise<Map<string, string>> {
  const names = new Map<string, string>(BUILTIN_SERVERS.map((s) => [s.id, s.displayName]));
  const byUser = new Map<string, Set<string>>();
  for (const e of events) {
    const userId = 'grant' in e ? e.grant.userId : e.userId;
    const serverId = 'grant' in e ? parseScope(e.grant.scope)?.serverId : e.serverId;
    if (serverId && !names.has(serverId)) byUser.set(userId, (byUser.get(userId) ?? new Set()).add(serverId));
  }
  for (const [userId, ids] of byUser) for (const [id, name] of await serverNamesOf(tx, userId, [...ids])) names.set(id, name);
  return names;
}
