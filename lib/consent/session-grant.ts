import type { Db } from '@/db/connection';
import type { GrantRow } from '@/db/queries/grants';
import { isConversationTainted } from '@/db/queries/taint';
import type { ToolCallRow } from '@/db/queries/tool-calls';
import type { ToolHost } from '@/lib/agent/tool-host';
import type { AuditKeyring } from '@/lib/audit/key';

import { autoApproveProblem } from './auto-approve';
import { constraintUnmetBy } from './constraint-check';
import { auditGrantEvents, changeOf } from './grant-audit';
import { constraintCompileProblem, expiryOf, grantLimitProblem, writeGrant, type GrantWrite } from './grant-writes';
import { longestGrant, policyEndOf } from './org-policy';
import { serverScope, toolScope } from './scopes';
import { readStandings } from './stored-grants';

/** "Allow for this session" cannot take effect for this call; `field` is the part of the decision that says why. */
export class SessionGrantRefused extends Error {
  constructor(
    message: string,
    readonly field: 'decision' | 'constraint',
  ) {
    super(message);
  }
}

/**
 * "Allow for this session" on an approval card: the tool's grant in this conversation, for the
 * session that started the run, with `auto_approve` (and the person's optional argument
 * constraint). Refused — before the call is decided — where it would not take effect: a
 * destructive tool, a tool that is not read-only while the conversation is tainted, a run with no
 * live session. Returns the write, made once the decision is recorded. The grant keeps the end of
 * the grant it replaces (the tool's own, else the server-wide one covering it); a tool with
 * neither gets one until the session ends.
 */
export async function prepareSessionGrant(
  deps: { db: Db; tools?: ToolHost; auditKeys: () => Promise<AuditKeyring> },
  call: ToolCallRow,
  run: { userId: string; conversationId: string; sessionId: string | null },
  opts: { input: Record<string, unknown>; constraint?: Record<string, unknown> },
): Promise<() => Promise<GrantRow>> {
  const refuse = (message: string, field: 'decision' | 'constraint' = 'decision') => new SessionGrantRefused(message, field);
  if (!call.serverId || !call.tool || !deps.tools) throw refuse('decision: only a tool of a server can be allowed for the session.');
  const servers = await deps.tools.serversFor(run.userId);
  const server = servers.find((s) => s.id === call.serverId);
  const catalog = server ? await deps.tools.gateway.listTools(server, { userId: run.userId, conversationId: run.conversationId }) : null;
  const tool = catalog?.tools.find((t) => t.name === call.tool);
  if (!server || !tool)
    throw refuse('decision: this tool is no longer available, so it cannot be allowed for the session; allow it once instead.');

  const [tainted, standings] = await Promise.all([isConversationTainted(deps.db, run.conversationId), readStandings(deps.db, run)]);
  const problem = autoApproveProblem({ ...tool, privateData: server.privateData === true }, tainted, standings.of(tool).org);
  if (problem) throw refuse(`decision: "allow_session" would not take effect: ${problem} Use allow_once.`);
  if (opts.constraint) {
    const bad = constraintCompileProblem(opts.constraint, tool.inputSchema);
    if (bad) throw refuse(bad, 'constraint');
    const outside = constraintUnmetBy(opts.constraint, opts.input);
    if (outside) {
      throw refuse(
        `constraint: this call's own arguments do not meet it (${outside}); a constraint must allow the call being approved.`,
        'constraint',
      );
    }
  }

  if (!run.sessionId || !standings.sessionLive) {
    throw refuse('decision: this turn was not started from a session that is still signed in; allow it once instead.');
  }
  const byScope = new Map(standings.grants.map((g) => [g.scope, g]));
  const now = new Date();
  const found = byScope.get(toolScope(server.id, tool.name)) ?? byScope.get(serverScope(server.id));
  const keep = found && !(found.expiresAt && found.expiresAt <= now) ? found : undefined;
  // No longer than the organization allows: a grant kept past that, or one for the session, is cut to it.
  const longest = longestGrant(standings.orgPolicies).expiry;
  const kept = keep && !policyEndOf(standings.orgPolicies, keep) ? keep : undefined;
  const write: GrantWrite = {
    owner: { userId: run.userId, conversationId: run.conversationId, sessionId: run.sessionId },
    scope: toolScope(server.id, tool.name),
    tools: [tool],
    serverUrl: server.url,
    autoApprove: true,
    constraint: opts.constraint ?? null,
    expiresIn: kept?.expiresIn ?? longest,
    expiresAt: kept ? kept.expiresAt : expiryOf(longest, now),
    plan: standings.plan,
    existing: standings.grants,
    now,
  };
  const over = grantLimitProblem(write);
  if (over) throw over;
  const keys = await deps.auditKeys();
  const before = keep?.scope === write.scope ? keep : undefined;
  // The grant and its audit entry commit together.
  return () =>
    deps.db.transaction(async (tx) => {
      const grant = await writeGrant(tx, write);
      await auditGrantEvents(tx, keys, [{ change: changeOf(before, grant), grant, by: run.userId }]);
      return grant;
    });
}
