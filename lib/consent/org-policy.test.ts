import { describe, expect, it } from 'vitest';

import { DEFAULT_ORG_POLICY, type StoredOrgPolicy } from '@/db/stored-json';

import {
  autoRunRefusal,
  clampedExpiry,
  grantLengthRefusal,
  hasPolicyHint,
  hostCovered,
  ownServerRefusal,
  patternCovers,
  policyEndOf,
  shareRefusal,
  toolRefusal,
  type OrgPolicyOf,
} from './org-policy';

/** The organization layer's rules, one by one (pure). */

const org = (name: string, change: Partial<StoredOrgPolicy>): OrgPolicyOf => ({
  orgId: `id-${name}`,
  orgName: name,
  policy: { ...DEFAULT_ORG_POLICY, ...change },
});

describe('organization policy rules', () => {
  it('names a server by namespace or one tool by its namespaced name, never a prefix', () => {
    expect(patternCovers('github', 'github', 'create_issue')).toBe(true);
    expect(patternCovers('github__create_issue', 'github', 'create_issue')).toBe(true);
    expect(patternCovers('git', 'github', 'create_issue')).toBe(false);
    expect(patternCovers('github__create', 'github', 'create_issue')).toBe(false);
  });

  it("matches a member's row of an organization's shared server by the organization's namespace too, for that organization only", () => {
    const shared = { sharedNamespaces: { 'row-1': 'tracker' } };
    const denies = { ...org('A', { tools: { allow: null, deny: ['tracker__search'] } }), ...shared };
    expect(toolRefusal([denies], { serverId: 'row-1', namespace: 'tracker2', name: 'search' })).toMatchObject({ rule: 'tool_denied' });
    // Another row under the member's namespace only: not the shared server.
    expect(toolRefusal([denies], { serverId: 'row-2', namespace: 'tracker2', name: 'search' })).toBeNull();
    const allows = { ...org('A', { tools: { allow: ['tracker'], deny: [] } }), ...shared };
    expect(toolRefusal([allows], { serverId: 'row-1', namespace: 'tracker2', name: 'search' })).toBeNull();
    // Another organization's policy reads the namespace the member sees.
    const other = org('B', { tools: { allow: null, deny: ['tracker'] } });
    expect(toolRefusal([other], { serverId: 'row-1', namespace: 'tracker2', name: 'search' })).toBeNull();
  });

  it("lets an allow entry naming a shared server in for that server's row only, never a member's own server of that namespace", () => {
    const allows = { ...org('A', { tools: { allow: ['tracker', 'notes'], deny: [] } }), orgNamespaces: ['tracker'] };
    // The member's own `tracker` (the shared row became `tracker2`, or they do not use it at all).
    expect(toolRefusal([allows], { serverId: 'own', namespace: 'tracker', name: 'search' })?.rule).toBe('tool_not_allowed');
    expect(
      toolRefusal([{ ...allows, sharedNamespaces: { 'row-1': 'tracker' } }], { serverId: 'row-1', namespace: 'tracker2', name: 'search' }),
    ).toBeNull();
    // A namespace that is no shared server's still reads the namespace the member sees.
    expect(toolRefusal([allows], { serverId: 'own-notes', namespace: 'notes', name: 'search' })).toBeNull();
    // Deny entries fail closed: they cover an own server of the same namespace too.
    const denies = { ...org('A', { tools: { allow: null, deny: ['tracker'] } }), orgNamespaces: ['tracker'] };
    expect(toolRefusal([denies], { serverId: 'own', namespace: 'tracker', name: 'search' })?.rule).toBe('tool_denied');
  });

  it('deny wins over allow; every organization must allow; the first refusal is told', () => {
    const a = org('A', { tools: { allow: ['github'], deny: ['github__delete_repo'] } });
    expect(toolRefusal([a], { namespace: 'github', name: 'create_issue' })).toBeNull();
    expect(toolRefusal([a], { namespace: 'github', name: 'delete_repo' })).toMatchObject({
      kind: 'org-policy',
      rule: 'tool_denied',
      orgName: 'A',
    });
    expect(toolRefusal([a], { namespace: 'notes', name: 'search' })?.rule).toBe('tool_not_allowed');
    const b = org('B', { tools: { allow: null, deny: ['github'] } });
    expect(toolRefusal([a, b], { namespace: 'github', name: 'create_issue' })).toMatchObject({ orgName: 'B', rule: 'tool_denied' });
    expect(toolRefusal([], { namespace: 'anything', name: 'x' })).toBeNull();
  });

  it('reads hints as the MCP spec does, believing "less caution" only from a trusted server', () => {
    const t = (trust: 'trusted' | 'untrusted', declaredAnnotations?: Record<string, boolean>) => ({ trust, declaredAnnotations });
    expect(hasPolicyHint(t('trusted'), 'destructiveHint')).toBe(true); // said nothing: destructive
    expect(hasPolicyHint(t('trusted', { destructiveHint: false }), 'destructiveHint')).toBe(false);
    expect(hasPolicyHint(t('trusted', { readOnlyHint: true }), 'destructiveHint')).toBe(false);
    expect(hasPolicyHint(t('untrusted', { readOnlyHint: true }), 'destructiveHint')).toBe(true);
    expect(hasPolicyHint(t('trusted', { openWorldHint: false }), 'openWorldHint')).toBe(false);
    expect(hasPolicyHint(t('untrusted', { openWorldHint: false }), 'openWorldHint')).toBe(true);
    const never = org('A', { autoApprove: { allowed: true, neverFor: ['openWorldHint'] } });
    expect(autoRunRefusal([never], t('trusted', { openWorldHint: false }))).toBeNull();
    expect(autoRunRefusal([never], t('trusted'))?.why).toBe(
      'Your organization "A" does not allow tools that reach outside systems to run without asking: every call asks.',
    );
  });

  it('grant lengths: the shortest longest wins; a default is cut; an older grant ends at its start plus the longest', () => {
    const policies = [org('A', { maxGrant: '12h' }), org('B', { maxGrant: '1h' })];
    expect(grantLengthRefusal(policies, '12h')).toMatchObject({ orgName: 'B', rule: 'grant_too_long' });
    expect(grantLengthRefusal(policies, '1h')).toBeNull();
    expect(clampedExpiry(policies, '12h')).toBe('1h');
    expect(clampedExpiry([], '12h')).toBe('12h');
    const createdAt = new Date('2026-12-06T10:00:00Z');
    expect(policyEndOf(policies, { createdAt, expiresAt: null })?.endsAt).toEqual(new Date('2026-12-06T11:00:00Z'));
    expect(policyEndOf(policies, { createdAt, expiresAt: new Date('2026-12-06T10:30:00Z') })).toBeNull();
  });

  it('hosts: exact, or every host under a domain (not the look-alike)', () => {
    expect(hostCovered('mcp.example.com', 'MCP.example.com')).toBe(true);
    expect(hostCovered('*.example.com', 'a.b.example.com')).toBe(true);
    expect(hostCovered('*.example.com', 'evilexample.com')).toBe(false);
    const p = org('A', { ownServers: { allowed: true, hosts: ['*.example.com'] } });
    expect(ownServerRefusal([p], 'https://mcp.example.com/mcp')).toBeNull();
    expect(ownServerRefusal([p], 'https://example.com.evil.test/mcp')?.rule).toBe('host_not_allowed');
    expect(ownServerRefusal([org('A', { ownServers: { allowed: false, hosts: null } })], 'https://mcp.example.com')?.rule).toBe(
      'own_servers_off',
    );
  });

  it('share links: public and tool details each refused with the field to change', () => {
    const p = org('A', { shares: { anyone: false, toolDetails: false } });
    expect(shareRefusal([p], { audience: 'anyone', includeToolDetails: false })?.rule).toBe('share_anyone');
    expect(shareRefusal([p], { audience: 'signed_in', includeToolDetails: true })?.rule).toBe('share_tool_details');
    expect(shareRefusal([p], { audience: 'signed_in', includeToolDetails: false })).toBeNull();
  });
});
