import type { Env } from '@/lib/config';
import { isPlan, limitsFor, UNLIMITED, type Plan } from '@/lib/limits';

import { serverScope, toolScope } from './scopes';

/**
 * Which tools each plan may use at all, as scope strings (`server:<id>/*` for a whole server).
 * `free` is limited to the first-party notes tools: the sandbox costs CPU on our side, and a
 * person's own servers are a paid feature. A tool outside the list is left out ("over plan"),
 * whatever the person grants. Enabled tools per conversation is a number, in `lib/limits.ts`.
 */
export const PLAN_TOOLS: Record<Plan, readonly string[] | 'any'> = {
  free: [serverScope('builtin-notes')],
  pro: 'any',
  enterprise: 'any',
};

/** A stored plan name as a plan; an unknown one gets the smallest (it only ever narrows). */
export function planOf(stored: string | null | undefined): Plan {
  return isPlan(stored) ? stored : 'free';
}

export function isOnPlan(plan: Plan, serverId: string, tool: string): boolean {
  const list = PLAN_TOOLS[plan];
  return list === 'any' || list.includes(toolScope(serverId, tool)) || list.includes(serverScope(serverId));
}

/** The most tools a person may have enabled in one conversation on this plan; null: no limit. */
export function enabledToolsMax(plan: Plan, env?: Env): number | null {
  const max = limitsFor(plan, env).enabledToolsPerConversation;
  return max >= UNLIMITED ? null : max;
}
