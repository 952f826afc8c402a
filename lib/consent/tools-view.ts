import type { Db } from '@/db/connection';
import { getConversation } from '@/db/queries/conversations';
import type { GrantRow } from '@/db/queries/grants';
import { getActiveRun } from '@/db/queries/runs';
import type { GrantExpiry, ToolState, Trust } from '@/db/vocabulary';
import { offerForStep } from '@/lib/agent/step-offer';
import type { ToolSearchSettings } from '@/lib/agent/tool-budget';
import type { ToolHost } from '@/lib/agent/tool-host';
import type { AuditKeyring } from '@/lib/audit/key';
import { AppError } from '@/lib/http/errors';
import type { Plan } from '@/lib/limits';
import { reviewState } from '@/lib/mcp/catalog';
import type { CallerIdentity, CatalogTool, McpServerConfig, ServerCatalog, SkippedTool } from '@/lib/mcp/types';

import { autoApproveProblem } from './auto-approve';
import { enabledToolKeys } from './grant-writes';
import { allowedExpiries, grantLengthRefusal, longestGrant } from './org-policy';
import { enabledToolsMax } from './plan-tools';
import { isTrustedReadOnly } from './policy';
import { scopesCovering, serverScope, toolScope } from './scopes';
import { readStandings, type Standings, type ToolStanding } from './stored-grants';
import { conversationTaint } from './taint';
import { definitionChanges, type DefinitionChange } from './tool-definition';

/**
 * The Tools panel's view of one conversation for the signed-in session asking
 * (`GET /api/conversations/:id/tools`): every server and tool the person has, where each stands,
 * why the ones left out are, and exactly what the model is offered on the next step.
 */

export interface GrantView {
  id: string;
  scope: string;
  autoApprove: boolean;
  constraint: Record<string, unknown> | null;
  createdAt: string;
  expiresAt: string | null;
  expiresIn: GrantExpiry;
}

export type LeftOutReason = 'schema_unusable' | 'over_plan' | 'org_policy' | 'suspended' | 'not_reviewed';

export interface ToolEntry {
  name: string;
  modelName: string | null;
  title: string | null;
  description: string | null;
  hints: { annotated: boolean; readOnly: boolean; destructive: boolean; openWorld: boolean };
  scope: string;
  /** Every scope string that could cover it. */
  scopes: string[];
  state: ToolState;
  /** Offered on the next step. */
  enabled: boolean;
  grant: GrantView | null;
  /** May "auto-approve" be set for it (the decision table would honor it)? and if not, why. */
  autoApprove: { allowed: boolean; reason: string | null };
  leftOut: { reason: LeftOutReason; message: string } | null;
  /** When suspended: what changed since the grant. */
  changes: DefinitionChange[] | null;
}

export interface ServerEntry {
  id: string;
  name: string;
  namespace: string;
  /** Whether its annotations are believed. */
  trust: Trust;
  /** Whether what it returns is believed (else its output taints the conversation). */
  trustContent: boolean;
  builtin: boolean;
  scope: string;
  /** A server-wide grant, if any. */
  grant: GrantView | null;
  tools: ToolEntry[];
}

export interface ConversationToolsView {
  plan: { name: Plan; enabledTools: { used: number; max: number | null } };
  /**
   * The grant lengths the person's organizations allow (all three when none narrows them), and
   * why the others are not offered (./org-policy.ts).
   */
  grantLengths: { allowed: GrantExpiry[]; why: string | null };
  /** Why auto-approval is narrowed, in words. */
  tainted: { reason: string } | null;
  servers: ServerEntry[];
  /** Exactly what the model is offered on the next step (name, description, input_schema). */
  offered: Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>;
}

export interface ConsentDeps {
  db: Db;
  host: ToolHost;
  /** The audit log's key: every grant change is logged (./grant-audit.ts). */
  auditKeys: () => Promise<AuditKeyring>;
  /** Every tool a server lists, reviewed or not (`AppTools.listAll`). */
  listAll(server: McpServerConfig, caller: CallerIdentity): Promise<ServerCatalog>;
  /** The engine's tool-search budget, so "what the model sees" is what the engine sends (default: DEFAULT_TOOL_SEARCH). */
  toolSearch?: ToolSearchSettings;
}

/** Whose view: the person, the conversation, and the signed-in session making the request. */
export interface ViewerContext {
  userId: string;
  conversationId: string;
  sessionId: string;
}

export async function assertConversationOwned(db: Db, userId: string, conversationId: string): Promise<void> {
  if (!(await getConversation(db, userId, conversationId))) {
    throw new AppError('not_found', 'conversation', `No conversation with id "${conversationId}".`);
  }
}

export async function conversationToolsView(deps: ConsentDeps, v: ViewerContext, now = new Date()): Promise<ConversationToolsView> {
  await assertConversationOwned(deps.db, v.userId, v.conversationId);
  const caller = { userId: v.userId, conversationId: v.conversationId };
  const servers = await deps.host.serversFor(v.userId);
  const [catalogs, standings, tainted, offer] = await Promise.all([
    Promise.all(servers.map((s) => deps.listAll(s, caller))),
    readStandings(deps.db, v, now),
    conversationTaint(deps.db, v.conversationId),
    nextOffer(deps, v),
  ]);
  const modelNames = new Map(Object.entries(offer.nameMap).map(([modelName, t]) => [`${t.serverId}/${t.tool}`, modelName]));
  const max = enabledToolsMax(standings.plan);
  return {
    plan: { name: standings.plan, enabledTools: { used: enabledToolKeys(standings.grants, now).size, max } },
    grantLengths: grantLengthsOf(standings),
    tainted,
    servers: servers.map((server, i) => serverEntry(server, catalogs[i]!, standings, modelNames, tainted !== null)),
    offered: offer.tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.input_schema as Record<string, unknown>,
    })),
  };
}

function grantLengthsOf(standings: Standings): ConversationToolsView['grantLengths'] {
  const longest = longestGrant(standings.orgPolicies);
  const allowed = allowedExpiries(longest.expiry);
  return { allowed, why: longest.by && longest.expiry !== 'session' ? grantLengthRefusal(standings.orgPolicies, 'session')!.why : null };
}

/** What the next step sends: past the tool budget, the active run's found tools count too. */
async function nextOffer(deps: ConsentDeps, v: ViewerContext) {
  const active = await getActiveRun(deps.db, v.conversationId);
  return offerForStep(deps.db, deps.host, v, { runId: active?.id ?? null, toolSearch: deps.toolSearch });
}

function serverEntry(
  server: McpServerConfig,
  catalog: ServerCatalog,
  standings: Standings,
  modelNames: Map<string, string>,
  tainted: boolean,
): ServerEntry {
  const serverGrant = standings.grants.find((g) => g.scope === serverScope(server.id)) ?? null;
  const reviewed = (t: CatalogTool) =>
    server.builtin === true || (server.reviewedTools !== undefined && reviewState(server.reviewedTools, t) !== 'no');
  return {
    id: server.id,
    name: server.displayName,
    namespace: server.namespace,
    trust: server.trust,
    trustContent: server.trustContent === true,
    builtin: server.builtin === true,
    scope: serverScope(server.id),
    grant: serverGrant ? grantView(serverGrant) : null,
    tools: [
      ...catalog.tools.map((t) => toolEntry(server, t, reviewed(t), standings.of(t), modelNames, tainted)),
      ...catalog.skipped.map((s) => skippedEntry(s)),
    ],
  };
}

function toolEntry(
  server: McpServerConfig,
  tool: CatalogTool,
  reviewed: boolean,
  standing: ToolStanding,
  modelNames: Map<string, string>,
  tainted: boolean,
): ToolEntry {
  const modelName = modelNames.get(`${tool.serverId}/${tool.name}`) ?? null;
  // A granted tool that changed is suspended first of all: the panel shows what changed.
  const leftOut =
    standing.state === 'suspended'
      ? {
          reason: 'suspended' as const,
          message: `${standing.why}${reviewed ? '' : ' Review it on the servers page, then switch it on again.'}`,
        }
      : !reviewed
        ? { reason: 'not_reviewed' as const, message: 'It is new or changed on the server: review it on the servers page first.' }
        : standing.overPlan
          ? { reason: 'over_plan' as const, message: standing.why ?? 'It is not included in your plan.' }
          : standing.org.refused
            ? { reason: 'org_policy' as const, message: standing.org.refused.why }
            : null;
  const state: ToolState = leftOut && leftOut.reason !== 'suspended' ? 'left_out' : standing.state;
  const problem = autoApproveProblem({ ...tool, privateData: server.privateData === true }, tainted, standing.org);
  const granted = standing.grant?.covered.tools[tool.name];
  return {
    name: tool.name,
    modelName,
    title: tool.title ?? null,
    description: tool.description ?? null,
    hints: {
      annotated: tool.declaredAnnotations !== undefined && Object.keys(tool.declaredAnnotations).length > 0,
      readOnly: tool.annotations.readOnlyHint === true,
      destructive: tool.annotations.destructiveHint === true,
      openWorld: tool.annotations.openWorldHint === true,
    },
    scope: toolScope(tool.serverId, tool.name),
    scopes: scopesCovering(tool.serverId, tool.name),
    state,
    enabled: modelName !== null,
    grant: standing.grant ? grantView(standing.grant) : null,
    // A switch that would change nothing is not offered: a trusted read-only tool asks only in a
    // tainted conversation, where auto-approve would not lift that either.
    autoApprove:
      problem !== null
        ? { allowed: false, reason: problem }
        : standing.state === 'default_on'
          ? { allowed: false, reason: 'It runs without asking already: a trusted first-party server marks it read-only.' }
          : isTrustedReadOnly(tool)
            ? { allowed: false, reason: 'It runs without asking already: a trusted server marks it read-only.' }
            : { allowed: true, reason: null },
    leftOut,
    changes: standing.state === 'suspended' && granted ? changesOf(granted, tool, server.url) : null,
  };
}

function changesOf(granted: Parameters<typeof definitionChanges>[0], tool: CatalogTool, url: string): DefinitionChange[] {
  const changes = definitionChanges(granted, tool, url);
  // The fingerprint covers the server's full text; a change past what is kept is still a change.
  return changes.length ? changes : [{ field: 'fingerprint', before: granted.fingerprint, after: tool.fingerprint }];
}

function skippedEntry(s: SkippedTool): ToolEntry {
  return {
    name: s.name,
    modelName: null,
    title: null,
    description: null,
    hints: { annotated: false, readOnly: false, destructive: false, openWorld: false },
    scope: toolScope(s.serverId, s.name),
    scopes: scopesCovering(s.serverId, s.name),
    state: 'left_out',
    enabled: false,
    grant: null,
    autoApprove: { allowed: false, reason: 'The tool cannot be used.' },
    leftOut: { reason: 'schema_unusable', message: `Left out: ${s.reason}.` },
    changes: null,
  };
}

export function grantView(g: GrantRow): GrantView {
  return {
    id: g.id,
    scope: g.scope,
    autoApprove: g.autoApprove,
    constraint: g.constraint,
    createdAt: g.createdAt.toISOString(),
    expiresAt: g.expiresAt?.toISOString() ?? null,
    expiresIn: g.expiresIn,
  };
}
