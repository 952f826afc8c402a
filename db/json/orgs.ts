import { z } from 'zod';

import { GRANT_EXPIRIES, POLICY_HINTS } from '../vocabulary';

/**
 * The JSON columns of the organization tables: an organization's policy. See db/stored-json.ts
 * for the rules every shape follows.
 */

// ── organizations.policy: what the organization allows its people (lib/consent/org-policy.ts) ──
/**
 * A server by its namespace (`github`), or one tool by its namespaced name (`github__create_issue`),
 * as the model and the Tools panel name them (lib/mcp/naming.ts).
 */
export const POLICY_TOOL_PATTERN = /^[a-z0-9-]+(?:_[a-z0-9-]+)*(?:__[A-Za-z0-9_.-]{1,128})?$/;
/** A host (`mcp.example.com`) or every host under a domain (`*.example.com`), lower-case. */
export const POLICY_HOST_PATTERN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

const orgPolicyV1 = z.object({
  v: z.literal(1),
  /** `allow`: null, every tool; a list, only these. `deny` wins over `allow`. */
  tools: z.object({
    allow: z.array(z.string().regex(POLICY_TOOL_PATTERN)).nullable(),
    deny: z.array(z.string().regex(POLICY_TOOL_PATTERN)),
  }),
  /** The longest a grant may last (`session`: as long as today, until the session ends). */
  maxGrant: z.enum(GRANT_EXPIRIES),
  /**
   * `allowed`: false, nothing runs without asking (no auto-approve, no "Allow for this session",
   * not even a trusted read-only tool); `neverFor`: the hints that always ask.
   */
  autoApprove: z.object({ allowed: z.boolean(), neverFor: z.array(z.enum(POLICY_HINTS)) }),
  /** Whether people may add servers of their own; `hosts`: null, any; a list, only those hosts. */
  ownServers: z.object({ allowed: z.boolean(), hosts: z.array(z.string().regex(POLICY_HOST_PATTERN)).nullable() }),
  /** `anyone`: a share link may be public (else only for signed-in people); `toolDetails`: it may show arguments and results. */
  shares: z.object({ anyone: z.boolean(), toolDetails: z.boolean() }),
});
export type StoredOrgPolicy = z.infer<typeof orgPolicyV1>;
export const storedOrgPolicy = orgPolicyV1;

/** No policy set: today's behaviour, nothing narrowed. */
export const DEFAULT_ORG_POLICY: StoredOrgPolicy = {
  v: 1,
  tools: { allow: null, deny: [] },
  maxGrant: 'session',
  autoApprove: { allowed: true, neverFor: [] },
  ownServers: { allowed: true, hosts: null },
  shares: { anyone: true, toolDetails: true },
};
