import { LRUCache } from 'lru-cache';

import type { Db } from '@/db/connection';
import { listPoliciesOfUser, type OrgPolicyRow } from '@/db/queries/orgs';

import type { GatewayPrincipal } from './principal';

/** The policies of a person's organizations as `/mcp` applies them to one request (listing and calls). */
export type OrgPoliciesOf = (p: Pick<GatewayPrincipal, 'userId' | 'toolsRev'>) => Promise<OrgPolicyRow[]>;

/** People whose policies are kept at once on an instance (those with a client calling; the rest fall out). */
const MAX_KEPT = 2000;

/**
 * Reads a person's organizations' policies once per `users.tools_rev`: every change that alters
 * them — a policy set, a membership accepted or ended (db/queries/orgs.ts) — bumps the members'
 * `tools_rev` in its own transaction, and `/mcp` reads `tools_rev` with the token on every request.
 * So a request that sees the new value reads the policies again, and one that still sees the old
 * value was authenticated before the change committed (as a request already past the read would
 * be without the memo). Saves a join per call (issue 25's latency row). What is kept was read
 * after its `tools_rev` was, so it is never older than that value.
 */
export function orgPolicyMemo(db: Db): OrgPoliciesOf {
  const kept = new LRUCache<string, { rev: number; policies: Promise<OrgPolicyRow[]> }>({ max: MAX_KEPT });
  return (p) => {
    const hit = kept.get(p.userId);
    if (hit?.rev === p.toolsRev) return hit.policies;
    const policies = listPoliciesOfUser(db, p.userId);
    kept.set(p.userId, { rev: p.toolsRev, policies });
    // A failed read is not kept: the next request asks again.
    policies.catch(() => kept.get(p.userId)?.policies === policies && kept.delete(p.userId));
    return policies;
  };
}
