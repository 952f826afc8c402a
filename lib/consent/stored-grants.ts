import { LRUCache } from 'lru-cache';

import type { Db } from '@/db/connection';
import { liveTokenProfile } from '@/db/queries/access-tokens';
import { findLiveAuthSession, type AuthSessionRow } from '@/db/queries/auth-sessions';
import { listLiveGrants, listSwitchedOff, type GrantRow } from '@/db/queries/grants';
import { listPoliciesOfUser } from '@/db/queries/orgs';
import { getUserPlan } from '@/db/queries/users';
import type { ToolState } from '@/db/vocabulary';
import type { Plan } from '@/lib/limits';
import { BUILTIN_SERVERS } from '@/lib/mcp/builtin';
import type { CatalogTool } from '@/lib/mcp/types';

import { NOT_SWITCHED_ON, type GrantSource, type RunGrantContext, type ToolGrant } from './grant-source';
import { NO_ORG_VERDICT, orgToolVerdict, policyEndOf, type OrgPolicyOf, type OrgToolVerdict } from './org-policy';
import { isOnPlan, planOf } from './plan-tools';
import { isTrustedReadOnly } from './policy';
import { serverScope, toolScope } from './scopes';
import { sameDefinition } from './tool-definition';

/**
 * The grants people gave, as stored (`tool_grants`, `tool_switches`), read for one run or one
 * panel view. The rules, first match wins for each tool:
 *
 * 1. switched off in this conversation → off, whatever else holds (turning off lasts);
 * 2. a first-party tool a trusted server marks read-only → on by default (policy, no grant);
 * 3. otherwise only a grant of the session that started the run counts — none when there is no
 *    session or it ended (signed out, expired): the tool-scope grant, else a server-wide grant
 *    that covers the tool (a server-wide grant covers only the tools present when it was given);
 *    a grant past `expires_at` is expired; one whose tool's fingerprint changed is suspended;
 * 4. no grant → off.
 *
 * Separately, a tool outside the plan's list is over plan: never offered, whatever its state; and
 * the organizations the person belongs to may forbid it, make every call of it ask, or end a grant
 * sooner than it would (./org-policy.ts): the grant is then expired, with the policy as the reason.
 */

export type StandingState = Exclude<ToolState, 'left_out'>;

export interface ToolStanding {
  state: StandingState;
  /** The grant that applies (or that is expired or suspended); null for default and off tools. */
  grant: GrantRow | null;
  overPlan: boolean;
  /** What the organizations' policies say of it (forbidden; every call asks). */
  org: OrgToolVerdict;
  /** Why the tool is not available, in words; null when it is. */
  why: string | null;
}

export interface Standings {
  plan: Plan;
  /** The policies of the person's organizations (none: nothing narrowed). */
  orgPolicies: OrgPolicyOf[];
  /** The session's grants in the conversation (live ones; expired ones included). */
  grants: GrantRow[];
  /** The session still holds: its grants may apply. */
  sessionLive: boolean;
  of(tool: CatalogTool): ToolStanding;
}

/** Why a tool is off in a turn an MCP client started (the model is told). */
const NOT_EXPOSED_TO_CLIENT = 'It is not exposed to the MCP client that started this turn.';

const BUILTIN_IDS = new Set(BUILTIN_SERVERS.map((s) => s.id));

/** On by default in every conversation and session: a first-party tool a trusted server marks read-only. */
export function isDefaultOn(tool: Pick<CatalogTool, 'serverId' | 'trust' | 'annotations'>): boolean {
  return BUILTIN_IDS.has(tool.serverId) && isTrustedReadOnly(tool);
}

/**
 * What standings are made of, as stored: the session that started the run (if it was live when
 * read), the conversation's switch-offs and that session's grants there. Kept apart from the plan
 * and the time, so a source may reuse them while `users.tools_rev` is unchanged.
 */
export interface GrantInputs {
  session: AuthSessionRow | null;
  switchedOff: Set<string>;
  grants: GrantRow[];
  orgPolicies: OrgPolicyOf[];
  /**
   * A run started by an MCP client's `switchboard_ask` (`ctx.clientId`, no session): the tools its
   * live profile exposes, as `serverId/tool` (none once the client is revoked or expired, or the
   * person turned its agent switch off — read again every step, never cached); null for
   * any other run.
   */
  clientTools: Set<string> | null;
}

export async function readGrantInputs(db: Db, ctx: RunGrantContext, now = new Date()): Promise<GrantInputs> {
  const session = ctx.sessionId ? await findLiveAuthSession(db, ctx.sessionId, now) : null;
  const live = session !== null && session.userId === ctx.userId;
  const [switchedOff, grants, orgPolicies, profile] = await Promise.all([
    listSwitchedOff(db, ctx.userId, ctx.conversationId),
    live ? listLiveGrants(db, { userId: ctx.userId, conversationId: ctx.conversationId, sessionId: ctx.sessionId! }) : [],
    listPoliciesOfUser(db, ctx.userId),
    !ctx.sessionId && ctx.clientId ? liveTokenProfile(db, ctx.userId, ctx.clientId, now) : null,
  ]);
  // The person's switch for Switchboard's agent is part of it: turned off, the client's turns in progress reach nothing.
  const exposed = profile?.agentTool === true ? profile.tools : [];
  const clientTools = !ctx.sessionId && ctx.clientId ? new Set(exposed.map((t) => `${t.serverId}/${t.tool}`)) : null;
  return { session: live ? session : null, switchedOff, grants, orgPolicies, clientTools };
}

export async function readStandings(db: Db, ctx: RunGrantContext, now = new Date()): Promise<Standings> {
  const [plan, inputs] = await Promise.all([
    ctx.plan !== undefined ? Promise.resolve(ctx.plan) : getUserPlan(db, ctx.userId),
    readGrantInputs(db, ctx, now),
  ]);
  return standingsFrom(inputs, planOf(plan), ctx, now);
}

/** The standings of every tool from their stored inputs, at `now` (a grant or session may have expired since they were read). */
export function standingsFrom(inputs: GrantInputs, plan: Plan, ctx: RunGrantContext, now: Date): Standings {
  const { session, switchedOff } = inputs;
  const sessionLive = session !== null && session.endedAt === null && session.expiresAt > now;
  const grants = sessionLive ? inputs.grants : [];
  const byScope = new Map(grants.map((g) => [g.scope, g]));

  const { orgPolicies } = inputs;
  return {
    plan,
    orgPolicies,
    grants,
    sessionLive,
    of(tool) {
      const overPlan = !isOnPlan(plan, tool.serverId, tool.name);
      const org = orgPolicies.length ? orgToolVerdict(orgPolicies, tool) : NO_ORG_VERDICT;
      const stand = (state: StandingState, grant: GrantRow | null, why: string | null): ToolStanding => ({
        state,
        grant,
        overPlan,
        org,
        why: why ?? (overPlan ? `It is not included in the ${plan} plan.` : (org.refused?.why ?? null)),
      });
      if (switchedOff.has(`${tool.serverId}/${tool.name}`))
        return stand('switched_off', null, 'The person switched it off in this conversation.');
      // A turn an MCP client started reaches exactly what its profile exposes, as the client's own
      // calls do — on, never auto-approved (a call the table asks about waits for the person); not
      // even the first-party tools every conversation has on by default.
      if (inputs.clientTools) {
        return inputs.clientTools.has(`${tool.serverId}/${tool.name}`)
          ? stand('default_on', null, null)
          : stand('off', null, NOT_EXPOSED_TO_CLIENT);
      }
      if (isDefaultOn(tool)) return stand('default_on', null, null);
      if (!sessionLive) {
        return stand(
          'off',
          null,
          ctx.sessionId ? 'The session that started this turn has signed out, which ended its grants.' : NOT_SWITCHED_ON,
        );
      }
      const candidates = [byScope.get(toolScope(tool.serverId, tool.name)), byScope.get(serverScope(tool.serverId))];
      let fallback: ToolStanding | null = null;
      for (const grant of candidates) {
        if (!grant) continue;
        const granted = grant.covered.tools[tool.name];
        if (!granted) continue; // a server-wide grant given before this tool existed
        const cut = policyEndOf(orgPolicies, grant);
        const standing =
          grant.expiresAt && grant.expiresAt <= now
            ? stand('expired', grant, 'Its grant in this conversation has expired.')
            : cut && cut.endsAt <= now
              ? stand('expired', grant, `Its grant in this conversation has ended: ${cut.why}`)
              : !sameDefinition(granted, tool)
                ? stand('suspended', grant, 'Its definition changed since it was granted; it waits until the person looks again.')
                : stand('granted', grant, null);
        if (standing.state === 'granted') return standing;
        fallback ??= standing;
      }
      return fallback ?? stand('off', null, NOT_SWITCHED_ON);
    },
  };
}

/** A standing as the engine's `ToolGrant`: only default-on and granted tools are active. */
export function toToolGrant(s: ToolStanding): ToolGrant {
  const state =
    s.state === 'default_on' || s.state === 'granted' ? 'active' : s.state === 'expired' || s.state === 'suspended' ? s.state : 'missing';
  return {
    state,
    autoApprove: s.state === 'granted' && s.grant!.autoApprove,
    grantId: s.state === 'granted' ? s.grant!.id : null,
    constraint: s.state === 'granted' ? s.grant!.constraint : null,
    overPlan: s.overPlan,
    ...(s.org.refused || s.org.askAlways ? { org: s.org } : {}),
    ...(s.why ? { why: s.why } : {}),
  };
}

/**
 * The app's grant source: what people granted, stored per (user, conversation, signed-in session).
 * When the engine says which `users.tools_rev` it read this step (`ctx.toolsRev`), what was read at
 * that same value is reused: every change to grants, switches and sessions bumps it (triggers,
 * migration 0016), so nothing stale can be answered.
 */
export function storedGrants(db: Db): GrantSource {
  // Bounded, least recently used first out: conversations active on one instance at once are far fewer.
  const cache = new LRUCache<string, { rev: number; inputs: GrantInputs }>({ max: MAX_CACHED });
  return {
    async grantsFor(ctx, tools) {
      const now = new Date();
      const key = `${ctx.userId}|${ctx.conversationId}|${ctx.sessionId ?? ''}|${ctx.clientId ?? ''}`;
      // A client's turn reads its live profile every step: revoking, expiring or editing a token
      // does not move `tools_rev`, so what was cached at that value may no longer hold.
      const cacheable = ctx.toolsRev !== undefined && !(ctx.clientId && !ctx.sessionId);
      let inputs = cacheable && cache.get(key)?.rev === ctx.toolsRev ? cache.get(key)!.inputs : null;
      const plan = ctx.plan !== undefined ? ctx.plan : await getUserPlan(db, ctx.userId);
      if (!inputs) {
        inputs = await readGrantInputs(db, ctx, now);
        if (cacheable) {
          cache.set(key, { rev: ctx.toolsRev!, inputs });
        }
      }
      const standings = standingsFrom(inputs, planOf(plan), ctx, now);
      return new Map(tools.map((t) => [t, toToolGrant(standings.of(t))]));
    },
  };
}

const MAX_CACHED = 2000;
