import type { CatalogTool } from '@/lib/mcp/types';

import type { OrgToolVerdict } from './org-policy';
import type { GrantState } from './policy';

/** How one tool stands for one run: whether it is offered, and how calls to it are decided. */
export interface ToolGrant {
  state: GrantState;
  autoApprove: boolean;
  grantId: string | null;
  /** A JSON Schema fragment the input must also satisfy (null: no constraint). */
  constraint: Record<string, unknown> | null;
  overPlan: boolean;
  /** What the organization's policy says of it (absent: nothing): forbidden, or every call asks. */
  org?: OrgToolVerdict;
  /** When it is not active, or over the plan: why, in words (the model and the panel are told). */
  why?: string;
}

export interface RunGrantContext {
  userId: string;
  conversationId: string;
  /** The signed-in session that started the run: its grants are the ones that apply. */
  sessionId: string | null;
  /**
   * The MCP client whose `switchboard_ask` started the run (`runs.client_id`), when no session did:
   * the tools its profile exposes are the run's grants, active and never auto-approved — as for the
   * client's own calls through /mcp (lib/gateway/call.ts). Absent or null: none.
   */
  clientId?: string | null;
  /**
   * The user's plan as the engine read it when this drive of the run began (a drive lasts until
   * the run pauses or ends), so each step does not read it again; absent: read it now.
   */
  plan?: string | null;
  /**
   * `users.tools_rev` as the engine read it for this step: a source may answer from what it read
   * at the same value (every change to servers, grants, switches or sessions bumps it); absent:
   * read everything now.
   */
  toolsRev?: number;
}

/**
 * The engine reads grants only through this: when it builds a step's tools (`offerTools`), and
 * again right before a call executes. The app's source is the stored one
 * (`./stored-grants.ts`); tests state grants with `staticGrants`.
 */
export interface GrantSource {
  grantsFor(ctx: RunGrantContext, tools: CatalogTool[]): Promise<Map<CatalogTool, ToolGrant>>;
}

/** Why a tool with no grant is not available (the model and the panel are told). */
export const NOT_SWITCHED_ON = 'It is not switched on in this conversation.';

/** May the model be offered this tool, and may a call to it run? */
export function isUsable(g: ToolGrant): boolean {
  return g.state === 'active' && !g.overPlan && !g.org?.refused;
}

const OPEN: ToolGrant = { state: 'active', autoApprove: false, grantId: null, constraint: null, overPlan: false };

/**
 * Every tool of the user's own servers is available, and nothing runs without asking unless
 * the decision table says a trusted read-only tool may: for benchmarks and tests of the tool
 * path that are not about consent. The app never uses it.
 */
export const allToolsOfOwnServers: GrantSource = {
  async grantsFor(_ctx, tools) {
    return new Map(tools.map((t) => [t, OPEN]));
  },
};

/** Grants stated explicitly, by `serverId/tool`: for tests, so they keep working when real grants arrive. */
export function staticGrants(grants: Record<string, Partial<ToolGrant>>): GrantSource {
  return {
    async grantsFor(_ctx, tools) {
      return new Map(
        tools.map((t) => {
          const g = grants[`${t.serverId}/${t.name}`] ?? grants[`${t.serverId}/*`];
          return [t, g ? { ...OPEN, ...g } : { ...OPEN, state: 'missing' as const }];
        }),
      );
    },
  };
}
