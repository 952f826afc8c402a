import {
  getGrantForUser,
  listLiveGrants,
  revokeGrantOfScope,
  revokeGrantOfUser,
  switchOff,
  switchOn,
  type GrantOwner,
} from '@/db/queries/grants';
import { isConversationTainted } from '@/db/queries/taint';
import type { GrantExpiry } from '@/db/vocabulary';
import { AppError } from '@/lib/http/errors';
import { holdsPrivateData } from '@/lib/mcp/builtin';
import type { CatalogTool, McpServerConfig } from '@/lib/mcp/types';

import { autoApproveProblem } from './auto-approve';
import { auditGrantEvents, changeOf, type GrantEvent } from './grant-audit';
import { constraintCompileProblem, DEFAULT_EXPIRY, writeGrant } from './grant-writes';
import { clampedExpiry, grantLengthRefusal } from './org-policy';
import { isOnPlan } from './plan-tools';
import { parseScope, SCOPE_FORMS, toolScope, type Scope } from './scopes';
import { isDefaultOn, readStandings } from './stored-grants';
import {
  assertConversationOwned,
  conversationToolsView,
  type ConsentDeps,
  type ConversationToolsView,
  type ViewerContext,
} from './tools-view';

/**
 * The person's own changes to what a conversation may use (`PUT` and `DELETE …/grants`).
 * Only these and the decision "Allow for this session" create, widen or extend a grant — never
 * the model, never a tool result. Each answers with the conversation's new Tools view.
 */

export interface SetGrantInput extends ViewerContext {
  scope: string;
  enabled: boolean;
  autoApprove?: boolean;
  constraint?: Record<string, unknown> | null;
  expiresIn?: GrantExpiry;
}

const bad = (message: string, field: string) => new AppError('bad_request', 'grant', message, field);

export async function setGrant(deps: ConsentDeps, input: SetGrantInput): Promise<ConversationToolsView> {
  await assertConversationOwned(deps.db, input.userId, input.conversationId);
  const scope = parseScope(input.scope);
  if (!scope) throw bad(`scope: "${input.scope.slice(0, 200)}" is not a scope; write ${SCOPE_FORMS}.`, 'scope');
  const { server, tools } = await resolveScope(deps, input.userId, scope);
  const owner: GrantOwner = { userId: input.userId, conversationId: input.conversationId, sessionId: input.sessionId };
  const keys = await deps.auditKeys();
  // The change and its audit entries commit together (or, refused half-way, not at all).
  await deps.db.transaction(async (tx) => {
    const inTx = { ...deps, db: tx };
    const events = input.enabled
      ? await switchScopeOn(inTx, owner, input, scope, server, tools)
      : await switchScopeOff(inTx, owner, scope, tools);
    await auditGrantEvents(tx, keys, events);
  });
  return conversationToolsView(deps, input);
}

export async function revokeGrant(deps: ConsentDeps, v: ViewerContext & { grantId: string }): Promise<ConversationToolsView> {
  await assertConversationOwned(deps.db, v.userId, v.conversationId);
  const grant = await getGrantForUser(deps.db, v.userId, v.conversationId, v.grantId);
  if (!grant) throw new AppError('not_found', 'grant', `No grant with id "${v.grantId}" in this conversation.`);
  // Revoking one that already ended changes nothing (and logs nothing): a second click is harmless.
  const keys = await deps.auditKeys();
  await deps.db.transaction(async (tx) => {
    const revoked = await revokeGrantOfUser(tx, v.userId, grant.id, 'revoked');
    if (revoked) await auditGrantEvents(tx, keys, [{ change: 'revoked', grant: revoked, by: v.userId }]);
  });
  return conversationToolsView(deps, v);
}

/** The server of a scope among the person's, and the tools it covers as listed now (only reviewed, usable ones). */
async function resolveScope(deps: ConsentDeps, userId: string, scope: Scope): Promise<{ server: McpServerConfig; tools: CatalogTool[] }> {
  const server = (await deps.host.serversFor(userId)).find((s) => s.id === scope.serverId);
  if (!server) throw bad(`scope: you have no enabled server with id "${scope.serverId}".`, 'scope');
  const catalog = await deps.host.gateway.listTools(server, { userId });
  if (catalog.error && !catalog.tools.length) {
    throw new AppError('conflict', 'grant', `scope: ${server.displayName} could not list its tools just now (${catalog.error}).`, 'scope');
  }
  if (scope.kind === 'server') return { server, tools: catalog.tools };
  const tool = catalog.tools.find((t) => t.name === scope.tool);
  if (!tool) {
    throw bad(
      `scope: ${server.displayName} has no usable tool named "${scope.tool.slice(0, 200)}" ` +
        '(a new or changed tool waits for review on the servers page).',
      'scope',
    );
  }
  return { server, tools: [tool] };
}

/**
 * Off: a tool's grant is revoked, and a tool that would still be on — on by default, or covered
 * by a server-wide grant — is switched off, which lasts. A server: its grants go, and its tools
 * on by default are switched off.
 */
async function switchScopeOff(deps: ConsentDeps, owner: GrantOwner, scope: Scope, tools: CatalogTool[]): Promise<GrantEvent[]> {
  const events: GrantEvent[] = [];
  const by = owner.userId;
  const off = async (t: CatalogTool) => {
    await switchOff(deps.db, { userId: owner.userId, conversationId: owner.conversationId, serverId: t.serverId, tool: t.name });
    events.push({ change: 'switched_off', ...owner, serverId: t.serverId, tool: t.name, by });
  };
  const revoke = async (scopeText: string) => {
    const revoked = await revokeGrantOfScope(deps.db, owner, scopeText, 'revoked');
    if (revoked) events.push({ change: 'revoked', grant: revoked, by });
  };
  if (scope.kind === 'tool') {
    const tool = tools[0]!;
    await revoke(toolScope(tool.serverId, tool.name));
    const standing = (await readStandings(deps.db, owner)).of(tool);
    if (standing.state === 'default_on' || standing.state === 'granted') await off(tool);
    return events;
  }
  for (const g of await listLiveGrants(deps.db, owner)) {
    const s = parseScope(g.scope);
    if (s?.serverId === scope.serverId) await revoke(g.scope);
  }
  for (const t of tools) if (isDefaultOn(t)) await off(t);
  return events;
}

async function switchScopeOn(
  deps: ConsentDeps,
  owner: GrantOwner,
  input: SetGrantInput,
  scope: Scope,
  server: McpServerConfig,
  tools: CatalogTool[],
): Promise<GrantEvent[]> {
  const events: GrantEvent[] = [];
  const by = owner.userId;
  const standings = await readStandings(deps.db, owner);
  const inPlan = tools.filter((t) => isOnPlan(standings.plan, t.serverId, t.name));
  if (!inPlan.length) {
    throw new AppError(
      'forbidden',
      'plan',
      `scope: ${server.displayName}'s tools are not included in the ${standings.plan} plan.`,
      'scope',
    );
  }
  // The organization's policy: a forbidden tool is never switched on (a server scope covers the rest).
  const onPlan = inPlan.filter((t) => !standings.of(t).org.refused);
  if (!onPlan.length) throw new AppError('forbidden', 'org_policy', `scope: ${standings.of(inPlan[0]!).org.refused!.why}`, 'scope');
  const expiresIn = input.expiresIn ?? clampedExpiry(standings.orgPolicies, DEFAULT_EXPIRY);
  const tooLong = grantLengthRefusal(standings.orgPolicies, expiresIn);
  if (tooLong) throw new AppError('forbidden', 'org_policy', `expiresIn: ${tooLong.why}`, 'expiresIn');
  // Switching on undoes a switch-off, which would otherwise win.
  for (const t of onPlan) {
    const wasOff = await switchOn(deps.db, {
      userId: owner.userId,
      conversationId: owner.conversationId,
      serverId: t.serverId,
      tool: t.name,
    });
    if (wasOff) events.push({ change: 'switched_on', ...owner, serverId: t.serverId, tool: t.name, by });
  }
  const needGrant = onPlan.filter((t) => !isDefaultOn(t));
  if (scope.kind === 'tool' && !needGrant.length) {
    if (input.autoApprove)
      throw bad('autoApprove: this tool runs without asking already (a trusted first-party server marks it read-only).', 'autoApprove');
    if (input.constraint) throw bad('constraint: this tool is on by default and takes no constraint.', 'constraint');
    return events;
  }
  if (scope.kind === 'server' && input.constraint) {
    throw bad('constraint: a constraint limits the arguments of one tool; give it with a "tool:" scope.', 'constraint');
  }
  if (input.constraint) {
    const problem = constraintCompileProblem(input.constraint, needGrant[0]?.inputSchema);
    if (problem) throw bad(problem, 'constraint');
  }
  if (input.autoApprove) {
    const tainted = await isConversationTainted(deps.db, owner.conversationId);
    const problems = needGrant.map((t) =>
      autoApproveProblem({ ...t, privateData: holdsPrivateData(t.serverId) }, tainted, standings.of(t).org),
    );
    if (problems.every((p) => p !== null)) throw bad(`autoApprove: ${problems[0]}`, 'autoApprove');
  }
  const before = standings.grants.find((g) => g.scope === input.scope);
  const grant = await writeGrant(deps.db, {
    owner,
    scope: input.scope,
    tools: scope.kind === 'server' ? onPlan : needGrant,
    serverUrl: server.url,
    autoApprove: input.autoApprove === true,
    constraint: input.constraint ?? null,
    expiresIn,
    plan: standings.plan,
    existing: standings.grants,
  });
  events.push({ change: changeOf(before, grant), grant, by });
  return events;
}
