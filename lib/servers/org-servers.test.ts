import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { insertMemberRow, memberRowIdOf, missingRequiredServers, sharedServersOfMember } from '@/db/queries/org-servers';
import { addMembership, insertOrg, setOrgPolicy } from '@/db/queries/orgs';
import { getServer, insertServer, listServers } from '@/db/queries/servers';
import { readToolsRev } from '@/db/queries/step-state';
import { mcpServers, oauthCredentials, orgServers } from '@/db/schema';
import { DEFAULT_ORG_POLICY } from '@/db/stored-json';
import { readStandings } from '@/lib/consent/stored-grants';
import { openTokens } from '@/lib/mcp/oauth/credentials';
import { refreshExpiringCredentials } from '@/lib/mcp/oauth/refresh-ahead';
import { removeMember } from '@/lib/orgs/orgs';
import { createAppTools } from '@/lib/server/tool-host';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { startOAuthFixture, type OAuthFixture } from '@/test/fixtures/oauth-fixture';
import { loopbackFetch } from '@/test/loopback-fetch';
import { approveAt, makeUserWithSession, startClientMetadataHost, testSecretBox } from '@/test/oauth-harness';

import { onServerUrlChange } from './hooks';
import { finishServerSignIn, startServerSignIn, type ServersOAuthContext } from './oauth';
import {
  addOrgServer,
  editOrgServer,
  listOrgServerViews,
  listServersWithShared,
  removeOrgMember,
  removeOrgServer,
  reviewOrgServer,
  stopUsingSharedServer,
  useSharedServer,
} from './org-servers';
import { addServer, editServer, listServerViews, removeServer } from './service';
import { CREDENTIALS_UNREADABLE } from './view';

// Shared servers of an organization (issue 26), through the use-cases and the app's own tool host
// (lib/server/tool-host.ts: the rows, serverConfig, the URL guard's place taken by loopback, OAuth
// from lib/mcp/oauth), against the OAuth fixture (an authorization server and an MCP server
// behind bearer tokens, telling which grant each call's token came from) and the MCP fixture
// requiring an API key (the shared credential).

const SECRET = 'org-shared-secret-9f2c7d1e';

const callOpts = (userId: string) => ({ caller: { userId }, signal: new AbortController().signal, timeoutMs: 10_000 });

describe.each(TEST_DATABASES.filter((d) => d.available))('shared servers ($kind)', ({ kind }) => {
  let h: DbHandle;
  let fx: OAuthFixture;
  let keyed: FixtureServer;
  let app: { origin: string; close(): Promise<void> };
  const box = testSecretBox('org-servers');

  beforeAll(async () => {
    h = await openTestDb(kind);
    // Token requests answered slowly, so concurrent refreshes would overlap at the provider if they were not one.
    fx = await startOAuthFixture({ tokenDelayMs: 150 });
    keyed = await startFixtureServer({ requireHeader: { name: 'X-Api-Key', value: SECRET } });
    app = await startClientMetadataHost();
  });
  afterAll(async () => {
    await Promise.all([fx.close(), keyed.close(), app.close()]);
    await h.close();
  });

  /** One instance of the app: its own tool host (no memory shared with another). */
  function instance() {
    const tools = createAppTools(h.db, { fetch: loopbackFetch, oauthFetch: loopbackFetch, box: async () => box });
    const ctx: ServersOAuthContext = {
      db: h.db,
      box,
      remote: tools.remote,
      builtinListing: tools.builtinListing,
      allowLoopback: true,
      oauthFetch: loopbackFetch,
      appOrigin: app.origin,
    };
    return { tools, ctx };
  }

  async function organization() {
    const org = await insertOrg(h.db, { name: `Acme ${kind} ${Math.random().toString(36).slice(2, 6)}` });
    const admin = await makeUserWithSession(h.db);
    const [m1, m2] = [await makeUserWithSession(h.db), await makeUserWithSession(h.db)];
    await addMembership(h.db, org.id, admin.userId, 'owner');
    await addMembership(h.db, org.id, m1.userId, 'member');
    await addMembership(h.db, org.id, m2.userId, 'member');
    return { org, admin, m1, m2 };
  }

  async function connect(ctx: ServersOAuthContext, who: { userId: string; sessionId: string }, rowId: string) {
    const { authorizationUrl } = await startServerSignIn(ctx, who, rowId, '/servers');
    const result = await finishServerSignIn(ctx, who, await approveAt(authorizationUrl), async () => {});
    expect(result.ok).toBe(true);
  }

  /** Calls the member's row's tool through the app's tool host, as a turn does. */
  async function callAs(tools: ReturnType<typeof instance>['tools'], userId: string, rowId: string, tool: string) {
    const server = (await tools.host.serversFor(userId)).find((s) => s.id === rowId);
    expect(server, 'the member’s tool host offers the shared server').toBeTruthy();
    return tools.host.gateway.callTool(server!, tool, {}, callOpts(userId));
  }

  it('per-user OAuth: the admin adds and reviews it, each member connects, and every call carries that member’s own token', async () => {
    const { tools, ctx } = instance();
    const { org, admin, m1, m2 } = await organization();

    const added = await addOrgServer(ctx, org.id, admin.userId, { name: 'Tracker', url: fx.url, auth: 'oauth', required: true });
    expect(added).toMatchObject({ auth: 'oauth', required: true, reviewedCount: 0 });
    expect(added.mine?.status).toBe('needs_sign_in');
    // The admin reviews through their own sign-in: the server lists its tools only to a signed-in person.
    await connect(ctx, admin, added.mine!.id);
    const [listed] = await listOrgServerViews(ctx, org.id, admin.userId);
    const whoami = listed!.mine!.tools.find((t) => t.name === 'whoami')!;
    const reviewed = await reviewOrgServer(ctx, org.id, admin.userId, added.id, { whoami: whoami.fingerprint });
    expect(reviewed.reviewedCount).toBe(1);

    // A required server is on for every member: their own row, enabled with what the admin approved, named for the organization.
    const rows: Record<string, string> = {};
    for (const m of [m1, m2]) {
      const page = await listServersWithShared(ctx, m.userId);
      const mine = page.servers.find((s) => s.org?.serverId === added.id)!;
      expect(mine).toMatchObject({ enabled: true, org: { orgName: org.name, required: true, auth: 'oauth' }, status: 'needs_sign_in' });
      rows[m.userId] = mine.id;
      // Not theirs to change.
      await expect(editServer(ctx, m.userId, mine.id, { name: 'Mine now' })).rejects.toMatchObject({ type: 'forbidden' });
      await expect(removeServer(ctx, m.userId, mine.id)).rejects.toMatchObject({ type: 'forbidden' });
      await expect(stopUsingSharedServer(ctx, m.userId, org.id, added.id)).rejects.toThrow(/requires "Tracker"/);
    }

    // Before connecting, a member's call needs their own sign-in — the admin's tokens are not theirs.
    const before = await callAs(tools, m1.userId, rows[m1.userId]!, 'whoami');
    expect(before.kind).toBe('needs_sign_in');

    await connect(ctx, m1, rows[m1.userId]!);
    await connect(ctx, m2, rows[m2.userId]!);
    const tokenOf = async (userId: string) => {
      const [cred] = await h.db.select().from(oauthCredentials).where(eq(oauthCredentials.userId, userId));
      return openTokens(box, cred!)!.access_token;
    };
    for (const m of [m1, m2, m1]) {
      const result = await callAs(tools, m.userId, rows[m.userId]!, 'whoami');
      expect(result.kind).toBe('result');
      expect(fx.calls.at(-1)!.token).toBe(await tokenOf(m.userId));
    }
    const grants = new Set(fx.calls.slice(-3).map((c) => c.grant));
    expect(grants.size, 'two members, two grants').toBe(2);
    expect(await tokenOf(m1.userId)).not.toBe(await tokenOf(m2.userId));
  });

  it('an expired access token is refreshed once for concurrent calls on two instances, and no call asks to sign in', async () => {
    const a = instance();
    const b = instance();
    const { org, admin, m1 } = await organization();
    const added = await addOrgServer(a.ctx, org.id, admin.userId, {
      name: 'Refresher',
      namespace: 'refresher',
      url: fx.url,
      auth: 'oauth',
      required: true,
    });
    await connect(a.ctx, admin, added.mine!.id);
    const [listed] = await listOrgServerViews(a.ctx, org.id, admin.userId);
    await reviewOrgServer(a.ctx, org.id, admin.userId, added.id, {
      whoami: listed!.mine!.tools.find((t) => t.name === 'whoami')!.fingerprint,
    });
    await listServersWithShared(a.ctx, m1.userId);
    const rowId = (await memberRowIdOf(h.db, m1.userId, added.id))!;
    await connect(a.ctx, m1, rowId);

    // The provider expires every token, and the stored one is past its time.
    fx.expireAccessTokens();
    await h.db
      .update(oauthCredentials)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthCredentials.userId, m1.userId));
    const refreshes = fx.counts.refresh;
    const replays = fx.counts.replays;
    const results = await Promise.all([
      callAs(a.tools, m1.userId, rowId, 'whoami'),
      callAs(b.tools, m1.userId, rowId, 'whoami'),
      callAs(a.tools, m1.userId, rowId, 'whoami'),
      callAs(b.tools, m1.userId, rowId, 'whoami'),
    ]);
    expect(results.map((r) => r.kind)).toEqual(['result', 'result', 'result', 'result']);
    expect(fx.counts.refresh - refreshes, 'exactly one refresh reached the authorization server').toBe(1);
    expect(fx.counts.replays).toBe(replays);
  });

  it('a shared credential is used by every member’s calls and is never in what a member (or an admin) is sent', async () => {
    const { tools, ctx } = instance();
    const { org, admin, m1 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Keyed',
      url: keyed.url,
      auth: 'shared',
      headers: { 'X-Api-Key': SECRET },
      required: false,
    });
    expect(added.headerNames).toEqual(['X-Api-Key']);
    expect(added.mine?.status).toBe('connected');
    const echo = added.mine!.tools.find((t) => t.name === 'echo')!;
    await reviewOrgServer(ctx, org.id, admin.userId, added.id, { echo: echo.fingerprint });

    // Optional: offered, not on, until the member turns it on.
    const page = await listServersWithShared(ctx, m1.userId);
    expect(page.servers.some((s) => s.org?.serverId === added.id)).toBe(false);
    expect(page.shared).toEqual([expect.objectContaining({ id: added.id, orgName: org.name, required: false, reviewed: true })]);
    const view = await useSharedServer(ctx, m1.userId, org.id, added.id);
    expect(view).toMatchObject({ enabled: true, status: 'connected', headerNames: [], org: { auth: 'shared' } });

    const result = await tools.host.gateway.callTool(
      (await tools.host.serversFor(m1.userId)).find((s) => s.id === view.id)!,
      'echo',
      { text: 'hi' },
      callOpts(m1.userId),
    );
    expect(result.kind).toBe('result');
    expect(keyed.requests.at(-1)!.headers['x-api-key']).toBe(SECRET);

    // Nowhere in a member's JSON, nor the admin's; not copied into the member's row.
    const memberJson = JSON.stringify([await listServersWithShared(ctx, m1.userId), view]);
    expect(memberJson).not.toContain(SECRET);
    expect(JSON.stringify(await listOrgServerViews(ctx, org.id, admin.userId))).not.toContain(SECRET);
    const [row] = await h.db.select().from(mcpServers).where(eq(mcpServers.id, view.id));
    expect(row!.headersSealed).toBeNull();

    // A new credential applies to the member's next call; turning it off ends their use.
    const sent = keyed.requests.length;
    await editOrgServer(ctx, org.id, admin.userId, added.id, { headers: { 'X-Api-Key': 'rotated' } });
    const rotated = await tools.host.gateway.callTool(
      (await tools.host.serversFor(m1.userId)).find((s) => s.id === view.id)!,
      'echo',
      { text: 'hi' },
      callOpts(m1.userId),
    );
    expect(keyed.requests.slice(sent).map((r) => r.headers['x-api-key'])).toContain('rotated');
    expect(rotated.kind).not.toBe('result'); // the server wants the old key: the admin's change reached the member
    await stopUsingSharedServer(ctx, m1.userId, org.id, added.id);
    expect(await getServer(h.db, m1.userId, view.id)).toBeNull();
  });

  it('the policy’s tool lists find a member’s row of a shared server by its link when the row took another namespace', async () => {
    const { tools, ctx } = instance();
    const { org, admin, m1 } = await organization();
    // The member has a server of their own named "keyed" already: their row of the shared one becomes "keyed2".
    await insertServer(h.db, m1.userId, {
      name: 'My own keyed',
      namespace: 'keyed',
      url: `${keyed.url}?own`,
      trust: 'untrusted',
      headersSealed: null,
      oauthClientId: null,
      oauthClientSecretSealed: null,
      timeoutMs: 5000,
    });
    const headers = { 'X-Api-Key': SECRET };
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Keyed',
      namespace: 'keyed',
      url: keyed.url,
      auth: 'shared',
      headers,
    });
    const echo = added.mine!.tools.find((t) => t.name === 'echo')!;
    await reviewOrgServer(ctx, org.id, admin.userId, added.id, { echo: echo.fingerprint });
    const view = await useSharedServer(ctx, m1.userId, org.id, added.id);
    expect(view.namespace).toBe('keyed2');

    /** The member's standing for the shared row's `echo`, as a turn's grant source reads it. */
    const standing = async () => {
      const server = (await tools.host.serversFor(m1.userId)).find((s) => s.id === view.id)!;
      const tool = (await tools.host.gateway.listTools(server, { userId: m1.userId })).tools.find((t) => t.name === 'echo')!;
      expect(tool.namespace).toBe('keyed2');
      const standings = await readStandings(h.db, { userId: m1.userId, conversationId: crypto.randomUUID(), sessionId: m1.sessionId });
      return standings.of(tool);
    };
    // A deny list naming the organization's namespace covers the member's renamed row.
    await setOrgPolicy(h.db, org.id, { ...DEFAULT_ORG_POLICY, tools: { allow: null, deny: ['keyed__echo'] } });
    expect((await standing()).org.refused).toMatchObject({ rule: 'tool_denied', why: expect.stringContaining('"keyed2__echo"') });
    // An allow list naming the organization's namespace lets the renamed row in.
    await setOrgPolicy(h.db, org.id, { ...DEFAULT_ORG_POLICY, tools: { allow: ['keyed'], deny: [] } });
    expect((await standing()).org.refused).toBeNull();
  });

  it('a member’s shared rows do not count towards serversPerUser; the shared servers an admin adds count towards theirs', async () => {
    const { ctx } = instance();
    const { org, admin, m1 } = await organization();
    vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ serversPerUser: 1 }));
    try {
      // The shared server the admin adds is counted as theirs: at the limit, neither another shared one nor one of their own.
      const headers = { 'X-Api-Key': SECRET };
      const input = { name: 'Counted', url: keyed.url, auth: 'shared', headers, required: true };
      const added = await addOrgServer(ctx, org.id, admin.userId, input);
      const echo = added.mine!.tools.find((t) => t.name === 'echo')!;
      await reviewOrgServer(ctx, org.id, admin.userId, added.id, { echo: echo.fingerprint });
      const refusal = { limit: 'serversPerUser', message: expect.stringContaining('You have 1') };
      await expect(addOrgServer(ctx, org.id, admin.userId, { ...input, name: 'Second shared' })).rejects.toMatchObject(refusal);
      await expect(addServer(ctx, admin.userId, { name: 'Admin own', url: `${keyed.url}?admin`, headers })).rejects.toMatchObject(refusal);
      // So an organization of one's own is no way around the plan: one made by a member at their limit adds none either.
      const own = await insertOrg(h.db, { name: `Own ${kind}` });
      await addMembership(h.db, own.id, m1.userId, 'owner');

      // A member already at the limit with a server of their own still gets the required one.
      await addServer(ctx, m1.userId, { name: 'Mine', url: `${keyed.url}?mine`, headers });
      await expect(addOrgServer(ctx, own.id, m1.userId, { ...input, name: 'Bypass' })).rejects.toMatchObject({ limit: 'serversPerUser' });
      const page = await listServersWithShared(ctx, m1.userId);
      expect(page.servers.filter((s) => s.org?.serverId === added.id)).toHaveLength(1);
      // Their own are what the limit counts: a second one is refused, naming it.
      await expect(addServer(ctx, m1.userId, { name: 'Second', url: `${keyed.url}?second`, headers })).rejects.toMatchObject({
        limit: 'serversPerUser',
        message: expect.stringContaining('You have 1'),
      });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('removing a member or the server ends its use; another organization’s admin and a member are refused', async () => {
    const { tools, ctx } = instance();
    const { org, admin, m1, m2 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Keyed',
      url: keyed.url,
      auth: 'shared',
      headers: { 'X-Api-Key': SECRET },
      required: true,
    });
    await reviewOrgServer(ctx, org.id, admin.userId, added.id, { echo: added.mine!.tools.find((t) => t.name === 'echo')!.fingerprint });
    // At the real tools_rev, as a turn reads them: the cached list must be left because the rev moved.
    const inHost = async (userId: string) =>
      (await tools.host.serversFor(userId, { toolsRev: (await readToolsRev(h.db, userId)) ?? undefined })).some(
        (s) => s.namespace === 'keyed',
      );
    expect(await inHost(m1.userId)).toBe(true);
    expect(await inHost(m2.userId)).toBe(true);

    // Authorization: a member cannot manage; another organization's admin finds nothing.
    await expect(addOrgServer(ctx, org.id, m1.userId, { name: 'X', url: keyed.url, auth: 'oauth' })).rejects.toMatchObject({
      type: 'forbidden',
    });
    await expect(listOrgServerViews(ctx, org.id, m1.userId)).rejects.toMatchObject({ type: 'forbidden' });
    const other = await organization();
    await expect(removeOrgServer(ctx, other.org.id, other.admin.userId, added.id)).rejects.toMatchObject({ type: 'not_found' });
    await expect(listOrgServerViews(ctx, org.id, other.admin.userId)).rejects.toMatchObject({ type: 'not_found' });
    await expect(useSharedServer(ctx, other.m1.userId, org.id, added.id)).rejects.toMatchObject({ type: 'not_found' });

    // Fields, by name.
    await expect(addOrgServer(ctx, org.id, admin.userId, { name: 'X', url: keyed.url, auth: 'magic' })).rejects.toMatchObject({
      field: 'auth',
    });
    await expect(addOrgServer(ctx, org.id, admin.userId, { name: 'X', url: keyed.url, auth: 'shared' })).rejects.toMatchObject({
      field: 'headers',
    });
    await expect(
      addOrgServer(ctx, org.id, admin.userId, { name: 'X', url: keyed.url, auth: 'oauth', headers: { A: 'b' } }),
    ).rejects.toMatchObject({ field: 'headers' });

    await removeMember(h.db, org.id, admin.userId, m1.userId);
    expect(await inHost(m1.userId)).toBe(false);
    expect((await listServers(h.db, m1.userId)).length).toBe(0);
    expect(await inHost(m2.userId)).toBe(true);

    await removeOrgServer(ctx, org.id, admin.userId, added.id);
    expect(await inHost(m2.userId)).toBe(false);
    expect(await inHost(admin.userId)).toBe(false);
  });

  it('a member removed between reading the shared server and inserting their row gets none; a row left over is unused', async () => {
    const { tools, ctx } = instance();
    const { org, admin, m1 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Keyed',
      url: keyed.url,
      auth: 'shared',
      headers: { 'X-Api-Key': SECRET },
      required: true,
    });
    // What ensureRequiredServers read for the member, then their removal commits, then the insert.
    const [read] = await missingRequiredServers(h.db, m1.userId);
    expect(read?.id).toBe(added.id);
    await removeMember(h.db, org.id, admin.userId, m1.userId);
    expect(await insertMemberRow(h.db, m1.userId, read!)).toBeNull();
    expect(await h.db.select().from(mcpServers).where(eq(mcpServers.userId, m1.userId))).toEqual([]);

    // A row of it left to someone outside the organization (however it came to be) is neither listed nor given to the tool host.
    await h.db
      .insert(mcpServers)
      .values({ userId: m1.userId, orgServerId: added.id, name: 'Keyed', namespace: 'keyed', url: keyed.url, enabled: true });
    expect(await listServers(h.db, m1.userId)).toEqual([]);
    expect((await tools.host.serversFor(m1.userId)).some((s) => s.namespace === 'keyed')).toBe(false);
  });

  it('a member’s row made after a review or an edit has the shared server’s values as at the insert, not as read before', async () => {
    const { ctx } = instance();
    const { org, admin, m1 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Keyed',
      url: keyed.url,
      auth: 'shared',
      headers: { 'X-Api-Key': SECRET },
      required: false,
    });
    const [read] = await sharedServersOfMember(h.db, m1.userId);
    const echo = added.mine!.tools.find((t) => t.name === 'echo')!;
    await reviewOrgServer(ctx, org.id, admin.userId, added.id, { echo: echo.fingerprint });
    await editOrgServer(ctx, org.id, admin.userId, added.id, { name: 'Keyed v2', trust: 'trusted' });
    const rowId = await insertMemberRow(h.db, m1.userId, read!.server);
    const row = await getServer(h.db, m1.userId, rowId!);
    expect(row).toMatchObject({ name: 'Keyed v2', trust: 'trusted', enabled: true, reviewedTools: { tools: { echo: echo.fingerprint } } });
  });

  it('an unreadable shared credential leaves the servers page and the admin page loading, the credential marked unreadable', async () => {
    const { ctx } = instance();
    const { org, admin, m1 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Keyed',
      url: keyed.url,
      auth: 'shared',
      headers: { 'X-Api-Key': SECRET },
      required: true,
    });
    await h.db.update(orgServers).set({ headersSealed: 'damaged' }).where(eq(orgServers.id, added.id));
    const page = await listServersWithShared(ctx, m1.userId);
    expect(page.servers.find((s) => s.org?.serverId === added.id)).toMatchObject({ lastError: CREDENTIALS_UNREADABLE });
    const [view] = await listOrgServerViews(ctx, org.id, admin.userId);
    expect(view).toMatchObject({ headerNames: [], mine: { lastError: CREDENTIALS_UNREADABLE } });
  });

  it('a shared-credential server is never reached with the member’s own sign-in, and Connect on it is refused', async () => {
    const { tools, ctx } = instance();
    const { org, admin, m1 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Tracker',
      url: fx.url,
      auth: 'shared',
      headers: { 'X-Api-Key': 'not-a-sign-in' },
      required: false,
    });
    const shared = await useSharedServer(ctx, m1.userId, org.id, added.id);
    await expect(startServerSignIn(ctx, m1, shared.id, '/servers')).rejects.toMatchObject({ type: 'forbidden', surface: 'org_server' });
    // The member's own sign-in to the same server, through a server of their own: found by its URL, it must not serve the shared row.
    const own = await addServer(ctx, m1.userId, { name: 'Mine', url: fx.url });
    await connect(ctx, m1, own.id);
    const whoami = (await listServerViews(ctx, m1.userId)).servers.find((s) => s.id === own.id)!.tools.find((t) => t.name === 'whoami')!;
    await h.db
      .update(mcpServers)
      .set({ enabled: true, reviewedTools: { v: 2, tools: { whoami: whoami.fingerprint } } })
      .where(eq(mcpServers.id, shared.id));
    const calls = fx.calls.length;
    const result = await callAs(tools, m1.userId, shared.id, 'whoami');
    expect(result.kind).not.toBe('result');
    expect(fx.calls.length, 'no call reached the server with the member’s token').toBe(calls);
  });

  it('removing a shared server runs every member row’s hooks even when one fails, and reports the failure after', async () => {
    const { ctx } = instance();
    const { org, admin, m1, m2 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, { name: 'Tracker', url: fx.url, auth: 'oauth', required: true });
    await listServersWithShared(ctx, m1.userId);
    await listServersWithShared(ctx, m2.userId);
    const seen: string[] = [];
    onServerUrlChange('test:org-server-removal', async (_deps, change) => {
      seen.push(change.userId);
      if (seen.length === 1) throw new Error('revocation failed');
    });
    try {
      await expect(removeOrgServer(ctx, org.id, admin.userId, added.id)).rejects.toThrow(/removed, but/);
    } finally {
      onServerUrlChange('test:org-server-removal', async () => {});
    }
    expect(new Set(seen)).toEqual(new Set([admin.userId, m1.userId, m2.userId]));
    expect(await h.db.select().from(orgServers).where(eq(orgServers.id, added.id))).toEqual([]);
  });

  it('removing a member forgets their OAuth sign-in for the organization’s servers, as removing the server does', async () => {
    const { ctx } = instance();
    const { org, admin, m1, m2 } = await organization();
    const added = await addOrgServer(ctx, org.id, admin.userId, {
      name: 'Gone',
      namespace: 'gone',
      url: fx.url,
      auth: 'oauth',
      required: true,
    });
    await listServersWithShared(ctx, m1.userId);
    await listServersWithShared(ctx, m2.userId);
    await connect(ctx, m1, (await memberRowIdOf(h.db, m1.userId, added.id))!);
    await connect(ctx, m2, (await memberRowIdOf(h.db, m2.userId, added.id))!);
    const credentialsOf = (userId: string) => h.db.select().from(oauthCredentials).where(eq(oauthCredentials.userId, userId));
    expect(await credentialsOf(m1.userId)).toHaveLength(1);

    expect(await removeOrgMember(ctx, org.id, admin.userId, m1.userId)).toEqual({ removed: true });
    expect(await memberRowIdOf(h.db, m1.userId, added.id)).toBeNull();
    expect(await credentialsOf(m1.userId), 'the removed member’s sign-in is forgotten').toEqual([]);
    expect(await credentialsOf(m2.userId), 'another member’s stays').toHaveLength(1);
  });

  // Last in the file: it revokes the fixture's grants at its end.
  it('the background refresh renews a token before it expires with no call, once for two instances ticking at once', async () => {
    const a = instance();
    const b = instance();
    const { org, admin, m1 } = await organization();
    const added = await addOrgServer(a.ctx, org.id, admin.userId, {
      name: 'Early',
      namespace: 'early',
      url: fx.url,
      auth: 'oauth',
      required: true,
    });
    await connect(a.ctx, admin, added.mine!.id);
    const [listed] = await listOrgServerViews(a.ctx, org.id, admin.userId);
    await reviewOrgServer(a.ctx, org.id, admin.userId, added.id, {
      whoami: listed!.mine!.tools.find((t) => t.name === 'whoami')!.fingerprint,
    });
    await listServersWithShared(a.ctx, m1.userId);
    const rowId = (await memberRowIdOf(h.db, m1.userId, added.id))!;
    await connect(a.ctx, m1, rowId);
    const credential = async () => (await h.db.select().from(oauthCredentials).where(eq(oauthCredentials.userId, m1.userId)))[0]!;
    const first = await credential();
    const oldToken = openTokens(box, first)!.access_token;

    // Due within the window (5 minutes), past half its hour, in use, not yet within a call’s 60 s: only the background refresh takes it.
    await h.db
      .update(oauthCredentials)
      .set({ expiresAt: new Date(Date.now() + 2 * 60_000), updatedAt: new Date(Date.now() - 58 * 60_000), lastUsedAt: new Date() })
      .where(eq(oauthCredentials.id, first.id));
    const refreshes = fx.counts.refresh;
    const calls = fx.calls.length;
    const [ra, rb] = await Promise.all([
      refreshExpiringCredentials(await a.tools.oauthStore(), { windowMs: 5 * 60_000 }),
      refreshExpiringCredentials(await b.tools.oauthStore(), { windowMs: 5 * 60_000 }),
    ]);
    expect(fx.counts.refresh - refreshes, 'exactly one refresh reached the authorization server').toBe(1);
    expect(fx.calls.length, 'no call was made').toBe(calls);
    expect(ra.failed).toEqual([]);
    expect(rb.failed).toEqual([]);
    expect(ra.refreshed + rb.refreshed).toBeGreaterThanOrEqual(1);
    const after = await credential();
    const newToken = openTokens(box, after)!.access_token;
    expect(newToken).not.toBe(oldToken);
    expect(after.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    // A token not due is left alone.
    const idle = await refreshExpiringCredentials(await a.tools.oauthStore(), { windowMs: 5 * 60_000 });
    expect(idle).toMatchObject({ refreshed: 0, failed: [] });
    expect(fx.counts.refresh - refreshes).toBe(1);

    // The member's next call uses the refreshed token, of the same grant, without a refresh of its own.
    const result = await callAs(a.tools, m1.userId, rowId, 'whoami');
    expect(result.kind).toBe('result');
    expect(fx.calls.at(-1)!.token).toBe(newToken);
    expect(fx.counts.refresh - refreshes).toBe(1);

    // The authorization server refuses the grant: the tick reports it, never throws, and the member's next call asks to sign in.
    fx.revokeAll();
    await h.db
      .update(oauthCredentials)
      .set({ expiresAt: new Date(Date.now() + 2 * 60_000), updatedAt: new Date(Date.now() - 58 * 60_000), lastUsedAt: new Date() })
      .where(eq(oauthCredentials.id, first.id));
    const refused = await refreshExpiringCredentials(await a.tools.oauthStore(), { windowMs: 5 * 60_000 });
    expect(refused.needsSignIn).toContain(first.id);
    expect((await credential()).tokens).toBeNull();
    const next = await callAs(b.tools, m1.userId, rowId, 'whoami');
    expect(next.kind).toBe('needs_sign_in');
  });
});
