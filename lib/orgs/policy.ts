import { z } from 'zod';

import type { Db } from '@/db/connection';
import { getOrgPolicy, setOrgPolicy } from '@/db/queries/orgs';
import { POLICY_HOST_PATTERN, POLICY_TOOL_PATTERN, type StoredOrgPolicy } from '@/db/stored-json';
import { GRANT_EXPIRIES, POLICY_HINTS } from '@/db/vocabulary';

import { MANAGING_ROLES, requireOrgRole } from './access';

/**
 * An organization's policy (`GET` / `PUT /api/orgs/:id/policy`), owners and admins only. What it
 * means is lib/consent/org-policy.ts; stored in `organizations.policy` (db/json/orgs.ts). Saving
 * bumps every member's `tools_rev`, so a running conversation honours it at its next step.
 */

const toolEntry = z
  .string({ error: 'must be a string' })
  .trim()
  .regex(POLICY_TOOL_PATTERN, 'must be a server namespace ("github") or a namespaced tool ("github__create_issue")');
const hostEntry = z
  .string({ error: 'must be a string' })
  .trim()
  .toLowerCase()
  .regex(POLICY_HOST_PATTERN, 'must be a host ("mcp.example.com") or "*.example.com", without scheme, port or path');
const list = <T extends z.ZodType>(item: T) => z.array(item, { error: 'must be a list' }).max(500, 'must have at most 500 entries');

export const policySchema = z
  .object({
    tools: z
      .object({ allow: list(toolEntry).nullable(), deny: list(toolEntry) }, { error: 'must be { allow: [...] or null, deny: [...] }' })
      .strict(),
    maxGrant: z.enum(GRANT_EXPIRIES, { error: `must be one of ${GRANT_EXPIRIES.join(', ')}` }),
    autoApprove: z
      .object(
        {
          allowed: z.boolean({ error: 'must be true or false' }),
          neverFor: z.array(z.enum(POLICY_HINTS, { error: `must be one of ${POLICY_HINTS.join(', ')}` }), { error: 'must be a list' }),
        },
        { error: 'must be { allowed, neverFor }' },
      )
      .strict(),
    ownServers: z
      .object(
        { allowed: z.boolean({ error: 'must be true or false' }), hosts: list(hostEntry).nullable() },
        { error: 'must be { allowed, hosts }' },
      )
      .strict(),
    shares: z
      .object(
        { anyone: z.boolean({ error: 'must be true or false' }), toolDetails: z.boolean({ error: 'must be true or false' }) },
        { error: 'must be { anyone, toolDetails }' },
      )
      .strict(),
  })
  .strict();
export type PolicyInput = z.infer<typeof policySchema>;

export async function readOrgPolicy(db: Db, orgId: string, userId: string): Promise<StoredOrgPolicy> {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'see its policy');
  return getOrgPolicy(db, orgId);
}

export async function writeOrgPolicy(db: Db, orgId: string, userId: string, input: PolicyInput): Promise<StoredOrgPolicy> {
  await requireOrgRole(db, orgId, userId, MANAGING_ROLES, 'change its policy');
  const policy: StoredOrgPolicy = {
    v: 1,
    ...input,
    tools: { allow: input.tools.allow && [...new Set(input.tools.allow)], deny: [...new Set(input.tools.deny)] },
    autoApprove: { ...input.autoApprove, neverFor: [...new Set(input.autoApprove.neverFor)] },
  };
  await setOrgPolicy(db, orgId, policy);
  return policy;
}
