import type { CatalogTool } from '@/lib/mcp/types';

import type { GrantState } from './policy';

/** How one tool stands for one run: whether it is offered, and how calls to it are decided. */
export interface ToolGrant {
  state: GrantState;
  autoApprove: boolean;
  grantId: string | null;
  /** A JSON Schema fragment the input must also satisfy (null: no constraint). */
  constraint: Record<string, unknown> | null;
  overPlan: boolean;
}

export interface RunGrantContext {
  userId: string;
  conversationId: string;
  /** The signed-in session that started the run: its grants are the ones that apply. */
  sessionId: string | null;
}

/**
 * The engine reads grants only through this. The consent work replaces the default source with
 * grants stored per (user, conversation, session); the engine does not change.
 */
export interface GrantSource {
  grantsFor(ctx: RunGrantContext, tools: CatalogTool[]): Promise<Map<CatalogTool, ToolGrant>>;
}

const OPEN: ToolGrant = { state: 'active', autoApprove: false, grantId: null, constraint: null, overPlan: false };

/**
 * Until per-conversation grants exist: every tool of the user's own servers is available, and
 * nothing runs without asking unless the decision table says a trusted read-only tool may.
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
