import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { appendMessage } from '@/db/queries/messages';
import { addMembership, insertOrg } from '@/db/queries/orgs';
import { createUser } from '@/db/queries/users';
import { DEFAULT_ORG_POLICY, type StoredOrgPolicy } from '@/db/stored-json';
import type { ConversationToolsView, ToolEntry } from '@/lib/consent/tools-view';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * An organization's policy through the routes as Next.js calls them: an admin sets it with
 * `PUT /api/orgs/:id/policy`, and a member's own requests are held to it by the API — the Tools
 * view and grant writes, share links, servers of their own — with the policy's reason in the error.
 * Someone who belongs to no organization keeps today's behaviour.
 */

const ORIGIN = 'http://localhost';
type Policy = Omit<StoredOrgPolicy, 'v'>;

describe('organization policy through the API', () => {
  let h: DbHandle;
  let routes: {
    policy: typeof import('./route');
    tools: typeof import('@/app/api/conversations/[id]/tools/route');
    grants: typeof import('@/app/api/conversations/[id]/grants/route');
    shares: typeof import('@/app/api/conversations/[id]/shares/route');
    share: typeof import('@/app/api/shares/[id]/route');
    open: typeof import('@/app/api/share/[token]/route');
    servers: typeof import('@/app/api/servers/route');
    tokens: typeof import('@/app/api/account/tokens/route');
    token: typeof import('@/app/api/account/tokens/[id]/route');
  };

  beforeAll(async () => {
    h = await openRouteRuntime('org-policy', { MCP_ALLOW_LOOPBACK: 'true' });
    routes = {
      policy: await import('./route'),
      tools: await import('@/app/api/conversations/[id]/tools/route'),
      grants: await import('@/app/api/conversations/[id]/grants/route'),
      shares: await import('@/app/api/conversations/[id]/shares/route'),
      share: await import('@/app/api/shares/[id]/route'),
      open: await import('@/app/api/share/[token]/route'),
      servers: await import('@/app/api/servers/route'),
      tokens: await import('@/app/api/account/tokens/route'),
      token: await import('@/app/api/account/tokens/[id]/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function person() {
    const user = (await createUser(h.db, { email: `p-${randomBytes(6).toString('hex')}@example.test`, plan: 'pro' }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
    await appendMessage(h.db, { conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'hello' }] });
    await appendMessage(h.db, {
      conversationId: conversation.id,
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
      stopReason: 'end_turn',
    });
    return { id: user.id, cookie, conversationId: conversation.id };
  }

  /** An organization with an admin and a member, its policy set by the admin through the route. */
  async function orgWithPolicy(change: Partial<Policy>) {
    const admin = await person();
    const member = await person();
    const org = await insertOrg(h.db, { name: 'Acme' });
    await addMembership(h.db, org.id, admin.id, 'admin');
    await addMembership(h.db, org.id, member.id, 'member');
    // `v` is the stored version, not part of the request (undefined is left out of the JSON).
    const res = await routes.policy.PUT(req('PUT', admin.cookie, { ...DEFAULT_ORG_POLICY, v: undefined, ...change }), at(org.id));
    expect(res.status, await res.clone().text()).toBe(200);
    return { org, admin, member };
  }

  function req(method: string, cookie: string, body?: unknown) {
    const headers: Record<string, string> = { cookie, origin: ORIGIN };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return new Request(`${ORIGIN}/api/x`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }
  const at = (id: string) => ({ params: Promise.resolve({ id }) });
  const view = async (p: { cookie: string; conversationId: string }): Promise<ConversationToolsView> =>
    (await routes.tools.GET(req('GET', p.cookie), at(p.conversationId))).json();
  const entry = (v: ConversationToolsView, serverId: string, name: string): ToolEntry =>
    v.servers.find((s) => s.id === serverId)!.tools.find((t) => t.name === name)!;
  const putGrant = (p: { cookie: string; conversationId: string }, body: unknown) =>
    routes.grants.PUT(req('PUT', p.cookie, body), at(p.conversationId));
  const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; field?: string; message: string } }).error;

  it('a member cannot enable a tool the policy forbids: left out in the Tools view with the reason, and refused by the API', async () => {
    const { member } = await orgWithPolicy({ tools: { allow: null, deny: ['notes__create', 'sandbox'] } });
    const v = await view(member);
    expect(entry(v, 'builtin-notes', 'create')).toMatchObject({
      state: 'left_out',
      enabled: false,
      leftOut: { reason: 'org_policy', message: 'Your organization "Acme" does not allow the tool "notes__create".' },
    });
    // A whole server by its namespace: even its tool on by default is not offered.
    expect(entry(v, 'builtin-sandbox', 'run_js')).toMatchObject({ state: 'left_out', leftOut: { reason: 'org_policy' } });
    expect(v.offered.map((t) => t.name).sort()).toEqual(['notes__get', 'notes__search']);

    const res = await putGrant(member, { scope: 'tool:builtin-notes/create', enabled: true });
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toMatchObject({
      field: 'scope',
      message: expect.stringContaining('does not allow the tool "notes__create"'),
    });
    // An allowed tool still switches on.
    expect((await putGrant(member, { scope: 'tool:builtin-notes/update', enabled: true, expiresIn: '1h' })).status).toBe(200);
  });

  it('a member cannot expose a tool the policy forbids to an MCP client: marked in the pickers, refused by the token routes', async () => {
    const { member } = await orgWithPolicy({ tools: { allow: null, deny: ['notes__create'] } });
    // What the Account page's pickers and the OAuth consent screen list: the tool with its reason, the others allowed.
    // Imported after the runtime's settings are stubbed (beforeAll), as the routes are.
    const { pickableTools } = await import('@/lib/gateway/catalog');
    const rt = await (await import('@/lib/server/runtime')).getRuntime();
    const picks = await pickableTools({ db: h.db, host: rt.tools.host }, { id: member.id, plan: 'pro' });
    expect(picks.find((t) => t.name === 'notes__create')).toMatchObject({
      refused: 'Your organization "Acme" does not allow the tool "notes__create".',
    });
    expect(picks.find((t) => t.name === 'notes__search')).toMatchObject({ refused: null });

    const none = { params: Promise.resolve({}) };
    const made = await routes.tokens.POST(req('POST', member.cookie, { name: 'ci', tools: ['notes__search', 'notes__create'] }), none);
    expect(made.status).toBe(403);
    expect(await errorOf(made)).toMatchObject({
      code: 'forbidden:org_policy',
      field: 'tools',
      message: 'tools: Your organization "Acme" does not allow the tool "notes__create".',
    });
    const ok = await routes.tokens.POST(req('POST', member.cookie, { name: 'ci', tools: ['notes__search'] }), none);
    expect(ok.status).toBe(201);
    const { id } = (await ok.json()) as { id: string };
    const patched = await routes.token.PATCH(req('PATCH', member.cookie, { tools: ['notes__search', 'notes__create'] }), at(id));
    expect(patched.status).toBe(403);
    expect((await errorOf(patched)).code).toBe('forbidden:org_policy');
  });

  it('an allow list leaves out everything not on it', async () => {
    const { member } = await orgWithPolicy({ tools: { allow: ['notes__search'], deny: [] } });
    const v = await view(member);
    expect(v.offered.map((t) => t.name)).toEqual(['notes__search']);
    expect(entry(v, 'builtin-notes', 'get').leftOut?.message).toMatch(/not on the list of allowed tools/);
  });

  it('a member cannot grant past the longest duration; the panel offers only what is allowed', async () => {
    const { member } = await orgWithPolicy({ maxGrant: '1h' });
    const res = await putGrant(member, { scope: 'tool:builtin-notes/create', enabled: true, expiresIn: 'session' });
    expect(res.status).toBe(403);
    expect(await errorOf(res)).toMatchObject({
      field: 'expiresIn',
      message: expect.stringMatching(/does not allow grants longer than 1 hour/),
    });
    expect((await putGrant(member, { scope: 'tool:builtin-notes/create', enabled: true, expiresIn: '12h' })).status).toBe(403);
    // Without a length, the default (12 h) is cut to what the organization allows.
    const ok = await putGrant(member, { scope: 'tool:builtin-notes/create', enabled: true });
    expect(ok.status).toBe(200);
    const v: ConversationToolsView = await ok.json();
    expect(entry(v, 'builtin-notes', 'create').grant).toMatchObject({ expiresIn: '1h' });
    expect(v.grantLengths).toEqual({ allowed: ['1h'], why: expect.stringMatching(/longer than 1 hour/) });
  });

  it('a member cannot auto-approve where the policy says every call asks', async () => {
    const { member } = await orgWithPolicy({ autoApprove: { allowed: false, neverFor: [] } });
    const res = await putGrant(member, { scope: 'tool:builtin-notes/create', enabled: true, autoApprove: true, expiresIn: '1h' });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({
      field: 'autoApprove',
      message: expect.stringMatching(/does not allow tools to run without asking/),
    });
    const v = await view(member);
    expect(entry(v, 'builtin-notes', 'create').autoApprove).toEqual({
      allowed: false,
      reason: 'Your organization "Acme" does not allow tools to run without asking: every call asks.',
    });
  });

  it('a member cannot make a public link, or one with tool details, where the policy forbids it', async () => {
    const { member } = await orgWithPolicy({ shares: { anyone: false, toolDetails: false } });
    const share = (body: unknown) => routes.shares.POST(req('POST', member.cookie, body), at(member.conversationId));
    const pub = await share({ audience: 'anyone' });
    expect(pub.status).toBe(403);
    expect(await errorOf(pub)).toMatchObject({ field: 'audience', message: expect.stringMatching(/does not allow public share links/) });
    const details = await share({ audience: 'signed_in', includeToolDetails: true });
    expect(details.status).toBe(403);
    expect(await errorOf(details)).toMatchObject({ field: 'includeToolDetails' });
    expect((await share({ audience: 'signed_in' })).status).toBe(201);
  });

  it('a link made before the policy forbade it: updating it is refused, and it no longer opens, with the reason', async () => {
    const { org, admin, member } = await orgWithPolicy({});
    const made = await routes.shares.POST(
      req('POST', member.cookie, { audience: 'anyone', includeToolDetails: true }),
      at(member.conversationId),
    );
    expect(made.status).toBe(201);
    const { id, url } = (await made.json()) as { id: string; url: string };
    const token = new URL(url).pathname.split('/').at(-1)!;
    const open = () => routes.open.GET(new Request(`${ORIGIN}/api/share/${token}`), { params: Promise.resolve({ token }) });
    const update = () => routes.share.PATCH(req('PATCH', member.cookie, { snapshot: 'latest' }), at(id));
    expect((await open()).status).toBe(200);
    expect((await update()).status).toBe(200);

    const setShares = async (shares: Policy['shares']) => {
      const res = await routes.policy.PUT(req('PUT', admin.cookie, { ...DEFAULT_ORG_POLICY, v: undefined, shares }), at(org.id));
      expect(res.status).toBe(200);
    };
    await setShares({ anyone: false, toolDetails: true });
    const refused = await update();
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({
      field: 'audience',
      message: expect.stringMatching(/does not allow public share links/),
    });
    const closed = await open();
    expect(closed.status).toBe(403);
    expect((await errorOf(closed)).message).toMatch(/owner's organization no longer allows public links/);

    await setShares({ anyone: true, toolDetails: false });
    expect(await errorOf(await update())).toMatchObject({ field: 'includeToolDetails' });
    expect((await errorOf(await open())).message).toMatch(/no longer allows links with tool details/);

    await setShares({ anyone: true, toolDetails: true });
    expect((await open()).status).toBe(200);
  });

  it('a member cannot add a server of their own, or one outside the allowed hosts', async () => {
    const off = await orgWithPolicy({ ownServers: { allowed: false, hosts: null } });
    const add = (cookie: string, url: string) =>
      routes.servers.POST(req('POST', cookie, { name: 'Mine', url }), { params: Promise.resolve({}) });
    const refused = await add(off.member.cookie, 'http://127.0.0.1:9/mcp');
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({
      field: 'url',
      message: expect.stringMatching(/does not allow adding servers of your own/),
    });
    const hosts = await orgWithPolicy({ ownServers: { allowed: true, hosts: ['*.example.com'] } });
    const elsewhere = await add(hosts.member.cookie, 'http://127.0.0.1:9/mcp');
    expect(await errorOf(elsewhere)).toMatchObject({
      field: 'url',
      message: expect.stringMatching(/servers at 127\.0\.0\.1 \(allowed hosts: \*\.example\.com\)/),
    });
  });

  it('someone in no organization keeps today’s behaviour; a malformed policy is refused naming the field', async () => {
    const alone = await person();
    expect(
      (await putGrant(alone, { scope: 'tool:builtin-notes/create', enabled: true, autoApprove: true, expiresIn: 'session' })).status,
    ).toBe(200);
    const { admin, org } = await orgWithPolicy({});
    const bad = await routes.policy.PUT(
      req('PUT', admin.cookie, { ...DEFAULT_ORG_POLICY, v: undefined, tools: { allow: null, deny: ['Not A Tool!'] } }),
      at(org.id),
    );
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/tools\.deny\.0.*namespace/);
  });
});
