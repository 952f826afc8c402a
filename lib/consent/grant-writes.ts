import type { Db } from '@/db/connection';
import { replaceGrant, type GrantOwner, type GrantRow } from '@/db/queries/grants';
import type { StoredConstraint, StoredGrantCoverage } from '@/db/stored-json';
import type { GrantExpiry } from '@/db/vocabulary';
import { limitExceeded, type LimitExceeded, type Plan } from '@/lib/limits';
import { checkToolSchema } from '@/lib/mcp/schema-guard';
import type { CatalogTool } from '@/lib/mcp/types';

import { constraintProblem } from './constraints';
import { EXPIRY_MS } from './org-policy';
import { enabledToolsMax } from './plan-tools';
import { parseScope } from './scopes';
import { isDefaultOn } from './stored-grants';
import { grantedToolOf } from './tool-definition';

/**
 * Writing a grant, for the two requests that may (`PUT …/grants` and the decision
 * `allow_session`): what it covers, when it ends, and the plan's limit on enabled tools.
 */

export const DEFAULT_EXPIRY: GrantExpiry = '12h';

/** When a grant given now ends; null: when its session ends. */
export function expiryOf(expiresIn: GrantExpiry, now: Date): Date | null {
  return expiresIn === 'session' ? null : new Date(now.getTime() + EXPIRY_MS[expiresIn]);
}

/**
 * Null when a constraint can be used; else what is wrong with it. It must be one of the three forms
 * a person picks (lib/consent/constraints.ts: exact value, one of a list, path prefix without
 * "..") about an argument the tool declares, so that the panel's words are exactly what is
 * enforced; and it must compile like a tool schema.
 */
export function constraintCompileProblem(constraint: unknown, inputSchema?: Record<string, unknown>): string | null {
  const form = constraintProblem(constraint, inputSchema);
  if (form) return `${form.field}: ${form.message}`;
  const check = checkToolSchema(constraint);
  return check.ok ? null : `constraint: ${check.reason}.`;
}

/**
 * The tools a person has switched on in the conversation through these grants (tools on by
 * default are not counted): every tool a live, unexpired grant covers — a suspended one still
 * holds its place until the person looks again.
 */
export function enabledToolKeys(grants: Pick<GrantRow, 'scope' | 'covered' | 'expiresAt' | 'revokedAt'>[], now: Date): Set<string> {
  const keys = new Set<string>();
  for (const g of grants) {
    if (g.revokedAt || (g.expiresAt && g.expiresAt <= now)) continue;
    const serverId = parseScope(g.scope)?.serverId;
    if (!serverId) continue;
    for (const [name, t] of Object.entries(g.covered.tools)) {
      if (isDefaultOn({ serverId, trust: 'trusted', annotations: t.annotations })) continue;
      keys.add(`${serverId}/${name}`);
    }
  }
  return keys;
}

export interface GrantWrite {
  owner: GrantOwner;
  scope: string;
  tools: CatalogTool[];
  serverUrl: string;
  autoApprove: boolean;
  constraint: StoredConstraint | null;
  expiresIn: GrantExpiry;
  /** Keep this end instead of one computed from `expiresIn` (allow_session keeps the grant's). */
  expiresAt?: Date | null;
  plan: Plan;
  /** The session's live grants in the conversation, before this write. */
  existing: GrantRow[];
  now?: Date;
}

/**
 * The plan's limit on enabled tools, for a grant about to be written: `LimitExceeded` when it
 * would take the conversation past it; a write that adds no tool (changing auto-approve,
 * renewing) always passes, even after a plan got smaller.
 */
export function grantLimitProblem(w: GrantWrite, covered: StoredGrantCoverage = coverageOf(w)): LimitExceeded | null {
  const now = w.now ?? new Date();
  const before = enabledToolKeys(w.existing, now);
  const others = w.existing.filter((g) => g.scope !== w.scope);
  const after = enabledToolKeys([...others, { scope: w.scope, covered, expiresAt: null, revokedAt: null }], now);
  const max = enabledToolsMax(w.plan);
  if (max === null || after.size <= max || after.size <= before.size) return null;
  return limitExceeded(
    'enabledToolsPerConversation',
    max,
    `${before.size} are on here: switch one off first, or move to a larger plan.`,
    w.plan,
  );
}

function coverageOf(w: GrantWrite): StoredGrantCoverage {
  return { v: 1, tools: Object.fromEntries(w.tools.map((t) => [t.name, grantedToolOf(t, w.serverUrl)])) };
}

/** Stores the grant, replacing the live one of the same scope, within the plan's limit. */
export async function writeGrant(db: Db, w: GrantWrite): Promise<GrantRow> {
  const now = w.now ?? new Date();
  const covered = coverageOf(w);
  const over = grantLimitProblem(w, covered);
  if (over) throw over;
  const { grant } = await replaceGrant(
    db,
    {
      ...w.owner,
      scope: w.scope,
      autoApprove: w.autoApprove,
      constraint: w.constraint,
      covered,
      expiresIn: w.expiresIn,
      expiresAt: w.expiresAt !== undefined ? w.expiresAt : expiryOf(w.expiresIn, now),
    },
    now,
  );
  return grant;
}
