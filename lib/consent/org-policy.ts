import type { StoredOrgPolicy } from '@/db/stored-json';
import type { GrantExpiry, PolicyHint, ShareAudience } from '@/db/vocabulary';
import { joinToolName, NAME_SEPARATOR } from '@/lib/mcp/naming';
import type { CatalogTool } from '@/lib/mcp/types';

/**
 * The organization layer of consent, above the plan and the session (docs/ARCHITECTURE.md,
 * "Organization policy"): pure rules over the policies of every organization the person belongs
 * to. Each rule that refuses says so as data — `{ kind: 'org-policy', rule, org, why }` — and its
 * `why` is what the Tools panel, the API's error and the model's error result say. A person in
 * several organizations is held to all of them (the first refusal is the one told). No
 * organization, or one that set no policy: nothing here refuses anything.
 */

export interface OrgPolicyOf {
  orgId: string;
  orgName: string;
  policy: StoredOrgPolicy;
  /**
   * The person's rows of this organization's shared servers: row id → the namespace the
   * organization gave it (`listPoliciesOfUser`). Absent or empty: none.
   */
  sharedNamespaces?: Readonly<Record<string, string>>;
  /**
   * The namespaces of all this organization's shared servers (whether the person uses them or
   * not). An allow-list entry naming one of them lets in that shared server's row only — never a
   * member's own server that happens to carry the same namespace. Absent: none.
   */
  orgNamespaces?: readonly string[];
}

export const ORG_RULES = [
  'tool_not_allowed',
  'tool_denied',
  'auto_approve_off',
  'auto_approve_hint',
  'grant_too_long',
  'own_servers_off',
  'host_not_allowed',
  'share_anyone',
  'share_tool_details',
] as const;
export type OrgRule = (typeof ORG_RULES)[number];

export interface OrgPolicyRefusal {
  kind: 'org-policy';
  rule: OrgRule;
  orgId: string;
  orgName: string;
  /** In words, starting "Your organization …". */
  why: string;
}

/** What the decision table needs of the organization layer for one tool (`ToolGrant.org`, `PolicyInput.org`). */
export interface OrgToolVerdict {
  /** The tool may not be used at all: never offered, a call is rejected. */
  refused: OrgPolicyRefusal | null;
  /** The tool may be used, but every call asks (no auto-approve, no trusted read-only auto-run). */
  askAlways: OrgPolicyRefusal | null;
}

export const NO_ORG_VERDICT: OrgToolVerdict = { refused: null, askAlways: null };

function refusal(p: OrgPolicyOf, rule: OrgRule, what: string): OrgPolicyRefusal {
  return { kind: 'org-policy', rule, orgId: p.orgId, orgName: p.orgName, why: `Your organization "${p.orgName}" does not allow ${what}.` };
}

function first(policies: readonly OrgPolicyOf[], rule: (p: OrgPolicyOf) => OrgPolicyRefusal | null): OrgPolicyRefusal | null {
  for (const p of policies) {
    const r = rule(p);
    if (r) return r;
  }
  return null;
}

/** Does a policy entry (`github` or `github__create_issue`) name this tool? */
export function patternCovers(pattern: string, namespace: string, tool: string): boolean {
  return pattern === namespace || pattern === joinToolName(namespace, tool);
}

/** A tool as the tool lists see it: its server's row (`serverId`), the namespace the person sees, its name. */
export interface PolicyTool {
  serverId?: string;
  namespace: string;
  name: string;
}

/**
 * The namespaces a policy's entries may name this tool by: the one the person sees and, for their
 * row of one of this organization's shared servers (matched by the row, i.e. its `org_server_id`),
 * the one the organization gave it — so `deny: ["tracker"]` covers the member's `tracker2`.
 */
function namespacesFor(p: OrgPolicyOf, tool: PolicyTool): string[] {
  const shared = tool.serverId !== undefined ? p.sharedNamespaces?.[tool.serverId] : undefined;
  return shared !== undefined && shared !== tool.namespace ? [tool.namespace, shared] : [tool.namespace];
}

/** May the person use this tool at all? Deny lists win over allow lists. */
export function toolRefusal(policies: readonly OrgPolicyOf[], tool: PolicyTool): OrgPolicyRefusal | null {
  const name = joinToolName(tool.namespace, tool.name);
  return first(policies, (p) => {
    const { allow, deny } = p.policy.tools;
    const namespaces = namespacesFor(p, tool);
    const covers = (pattern: string) => namespaces.some((ns) => patternCovers(pattern, ns, tool.name));
    // Deny entries cover any row by the names it goes by (failing closed); an allow entry naming
    // a shared server covers only that server's row, so a member's own `tracker` is not let in
    // by an allow list written for the organization's `tracker`.
    const sharedNamespace = tool.serverId !== undefined ? p.sharedNamespaces?.[tool.serverId] : undefined;
    const allowCovers = (pattern: string) => {
      const patternNamespace = pattern.split(NAME_SEPARATOR, 1)[0]!;
      if (p.orgNamespaces?.includes(patternNamespace) && sharedNamespace !== patternNamespace) return false;
      return covers(pattern);
    };
    if (deny.some(covers)) return refusal(p, 'tool_denied', `the tool "${name}"`);
    if (allow !== null && !allow.some(allowCovers)) {
      return refusal(p, 'tool_not_allowed', `the tool "${name}" (it is not on the list of allowed tools)`);
    }
    return null;
  });
}

/** What the policy's hints are read from: the tool's trust and the hints its server declared (`CatalogTool.declaredAnnotations`). */
export type HintedTool = Pick<CatalogTool, 'trust' | 'declaredAnnotations'>;

/**
 * The hints as the MCP spec reads them, from what the server declared (absent: the spec's
 * default — destructive, open world): a hint asking for less caution counts only from a server
 * whose annotations are trusted.
 */
export function hasPolicyHint(tool: HintedTool, hint: PolicyHint): boolean {
  const trusted = tool.trust === 'trusted';
  const a = tool.declaredAnnotations ?? {};
  if (hint === 'destructiveHint') return !(trusted && (a.readOnlyHint === true || a.destructiveHint === false));
  return !(trusted && a.openWorldHint === false);
}

const HINT_WORDS: Record<PolicyHint, string> = {
  destructiveHint: 'tools that may be destructive',
  openWorldHint: 'tools that reach outside systems',
};

/** May a call of this tool run without asking (auto-approve, "Allow for this session", a trusted read-only tool)? */
export function autoRunRefusal(policies: readonly OrgPolicyOf[], tool: HintedTool): OrgPolicyRefusal | null {
  return first(policies, (p) => {
    if (!p.policy.autoApprove.allowed) return refusal(p, 'auto_approve_off', 'tools to run without asking: every call asks');
    const hint = p.policy.autoApprove.neverFor.find((h) => hasPolicyHint(tool, h));
    return hint ? refusal(p, 'auto_approve_hint', `${HINT_WORDS[hint]} to run without asking: every call asks`) : null;
  });
}

export function orgToolVerdict(policies: readonly OrgPolicyOf[], tool: HintedTool & PolicyTool): OrgToolVerdict {
  if (!policies.length) return NO_ORG_VERDICT;
  return { refused: toolRefusal(policies, tool), askAlways: autoRunRefusal(policies, tool) };
}

/** Grant lengths, shortest first (`session` lasts until the session ends: the longest). */
const EXPIRY_ORDER: readonly GrantExpiry[] = ['1h', '12h', 'session'];
export const EXPIRY_MS: Record<Exclude<GrantExpiry, 'session'>, number> = { '1h': 3_600_000, '12h': 12 * 3_600_000 };
const EXPIRY_WORDS: Record<GrantExpiry, string> = { '1h': '1 hour', '12h': '12 hours', session: 'the session' };

/** The longest grant every policy allows, and the policy that sets it (null: none narrows it). */
export function longestGrant(policies: readonly OrgPolicyOf[]): { expiry: GrantExpiry; by: OrgPolicyOf | null } {
  let out: { expiry: GrantExpiry; by: OrgPolicyOf | null } = { expiry: 'session', by: null };
  for (const p of policies) {
    if (EXPIRY_ORDER.indexOf(p.policy.maxGrant) < EXPIRY_ORDER.indexOf(out.expiry)) out = { expiry: p.policy.maxGrant, by: p };
  }
  return out;
}

/** Refuses a grant asked to last longer than the policies allow. */
export function grantLengthRefusal(policies: readonly OrgPolicyOf[], expiresIn: GrantExpiry): OrgPolicyRefusal | null {
  const { expiry, by } = longestGrant(policies);
  if (!by || EXPIRY_ORDER.indexOf(expiresIn) <= EXPIRY_ORDER.indexOf(expiry)) return null;
  return refusal(by, 'grant_too_long', `grants longer than ${EXPIRY_WORDS[expiry]} (choose ${allowedExpiries(expiry).join(' or ')})`);
}

/** The given length, or the longest the policies allow when that is shorter (a default never asks for more). */
export function clampedExpiry(policies: readonly OrgPolicyOf[], expiry: GrantExpiry): GrantExpiry {
  const { expiry: longest } = longestGrant(policies);
  return EXPIRY_ORDER.indexOf(expiry) <= EXPIRY_ORDER.indexOf(longest) ? expiry : longest;
}

export function allowedExpiries(longest: GrantExpiry): GrantExpiry[] {
  return EXPIRY_ORDER.slice(0, EXPIRY_ORDER.indexOf(longest) + 1);
}

/**
 * A grant given before the policy got stricter: when it ends under the policy (its start plus the
 * longest allowed), if that is sooner than its own end. Null: the policy does not shorten it.
 */
export function policyEndOf(
  policies: readonly OrgPolicyOf[],
  grant: { createdAt: Date; expiresAt: Date | null },
): (OrgPolicyRefusal & { endsAt: Date }) | null {
  const { expiry, by } = longestGrant(policies);
  if (!by || expiry === 'session') return null;
  const end = new Date(grant.createdAt.getTime() + EXPIRY_MS[expiry]);
  return grant.expiresAt === null || grant.expiresAt > end
    ? { ...refusal(by, 'grant_too_long', `grants longer than ${EXPIRY_WORDS[expiry]}`), endsAt: end }
    : null;
}

/** Does a host pattern (`mcp.example.com`, `*.example.com`) cover this host? */
export function hostCovered(pattern: string, host: string): boolean {
  const h = host.toLowerCase();
  return pattern.startsWith('*.') ? h.endsWith(pattern.slice(1)) : h === pattern;
}

/** May the person add (or point) a server of their own at this URL? */
export function ownServerRefusal(policies: readonly OrgPolicyOf[], url: string): OrgPolicyRefusal | null {
  let host = '';
  try {
    host = new URL(url).hostname;
  } catch {
    // an unparsable URL matches no host; the server's own checks say what is wrong with it
  }
  return first(policies, (p) => {
    if (!p.policy.ownServers.allowed) return refusal(p, 'own_servers_off', 'adding servers of your own');
    const hosts = p.policy.ownServers.hosts;
    if (hosts !== null && !hosts.some((h) => hostCovered(h, host))) {
      return refusal(p, 'host_not_allowed', `servers at ${host || 'this address'} (allowed hosts: ${hosts.join(', ') || 'none'})`);
    }
    return null;
  });
}

/** May the person make a share link with these settings? */
export function shareRefusal(
  policies: readonly OrgPolicyOf[],
  link: { audience: ShareAudience; includeToolDetails: boolean },
): OrgPolicyRefusal | null {
  return first(policies, (p) => {
    if (link.audience === 'anyone' && !p.policy.shares.anyone) {
      return refusal(p, 'share_anyone', 'public share links: choose audience "signed_in"');
    }
    if (link.includeToolDetails && !p.policy.shares.toolDetails) {
      return refusal(p, 'share_tool_details', 'tool arguments and results in share links: set includeToolDetails to false');
    }
    return null;
  });
}
