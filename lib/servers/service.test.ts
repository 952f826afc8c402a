import { randomBytes } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getServer } from '@/db/queries/servers';
import { findLatestCatalog } from '@/db/queries/tool-catalogs';
import { createUser } from '@/db/queries/users';
import { mcpServers } from '@/db/schema';
import { storedCatalog } from '@/db/stored-json';
import { offerTools } from '@/lib/agent/tool-host';
import { allToolsOfOwnServers } from '@/lib/consent/grant-source';
import { AppError, errorResponse } from '@/lib/http/errors';
import { LimitExceeded } from '@/lib/limits';
import { createSecretBox } from '@/lib/secrets/secret-box';
import { createAppTools } from '@/lib/server/tool-host';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { onServerUrlChange, type ServerUrlChange } from './hooks';
import {
  addServer,
  editServer,
  enableServerTools,
  importServers,
  listServerViews,
  refreshServer,
  removeServer,
  testServer,
  type ServersContext,
} from './service';

const SECRET = 'sk-live-DO-NOT-LEAK-4711';
const noArgs = { type: 'object' as const, properties: {} };
const TOOLS: Tool[] = [
  {
    name: 'echo',
    description: 'Returns its arguments.',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  },
  { name: 'counter', description: 'Counts.', inputSchema: noArgs },
];

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`servers use-cases on ${kind}`, () => {
    let h: DbHandle;
    let ctx: ServersContext;
    let tools: ReturnType<typeof createAppTools>;
    const fixtures: FixtureServer[] = [];
    const box = createSecretBox(randomBytes(32));
    const urlChanges: ServerUrlChange[] = [];
    let logged = '';

    beforeAll(async () => {
      h = await openTestDb(kind);
      // The servers page's review, not consent: every reviewed tool counts as granted here.
      tools = createAppTools(h.db, { fetch: loopbackFetch, box: async () => box, grants: allToolsOfOwnServers });
      ctx = { db: h.db, box, remote: tools.remote, builtinListing: tools.builtinListing, allowLoopback: true };
      onServerUrlChange('test-recorder', async (_db, change) => void urlChanges.push(change));
      for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) {
        vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void (logged += `${args.map(String).join(' ')}\n`));
      }
    });
    afterEach(() => expect(logged).not.toContain(SECRET));
    afterAll(async () => {
      vi.restoreAllMocks();
      await Promise.all(fixtures.map((f) => f.close()));
      await h?.close();
    });

    async function fixture(opts: Parameters<typeof startFixtureServer>[0] = {}) {
      const f = await startFixtureServer({ tools: TOOLS, ...opts });
      fixtures.push(f);
      return f;
    }
    async function newUser() {
      const u = await createUser(h.db, { email: `sv${Math.random().toString(36).slice(2)}@example.test` });
      return u!.id;
    }
    const caught = async (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e as AppError,
      );

    it('adds a server, tries it at once, and shows its tools without enabling anything; header values never come back', async () => {
      const f = await fixture({ requireHeader: { name: 'X-Api-Key', value: SECRET } });
      const me = await newUser();
      const view = await addServer(ctx, me, { name: 'Weather Tools', url: f.url, headers: { 'X-Api-Key': SECRET } });
      expect(view).toMatchObject({
        name: 'Weather Tools',
        namespace: 'weather-tools',
        trust: 'untrusted',
        trustContent: false,
        timeoutMs: 60_000,
        enabled: false,
        builtin: false,
        headerNames: ['X-Api-Key'],
        oauthClient: null,
        status: 'connected',
        lastError: null,
        protocolVersion: '2026-07-28',
        transport: 'streamable_http',
        toolsChanged: false,
        skipped: [],
      });
      expect(view.tools.map((t) => [t.name, t.reviewed, t.annotations])).toEqual([
        ['echo', false, { readOnlyHint: true }],
        ['counter', false, null],
      ]);
      expect(f.requests.every((r) => r.headers['x-api-key'] === SECRET)).toBe(true);
      expect(JSON.stringify(view)).not.toContain(SECRET);
      const row = (await getServer(h.db, me, view.id))!;
      expect(row.headersSealed).not.toContain(SECRET);
      const listed = await listServerViews(ctx, me);
      expect(JSON.stringify(listed)).not.toContain(SECRET);
      expect(listed.servers.map((s) => s.tools.length)).toEqual([2]); // from the kept listing, no new request
      expect(listed.builtin.map((s) => [s.namespace, s.builtin, s.enabled, s.status])).toEqual([
        ['notes', true, true, 'connected'],
        ['sandbox', true, true, 'connected'],
      ]);
      expect(listed.builtin[0]!.tools.every((t) => t.reviewed)).toBe(true);
    });

    it('records a refused sign-in as needs_sign_in and an unreachable server as unreachable, in words without secrets', async () => {
      const f = await fixture({ requireHeader: { name: 'X-Api-Key', value: 'the-right-one' } });
      const me = await newUser();
      const wrong = await addServer(ctx, me, { name: 'Locked', url: `${f.url}?access_token=${SECRET}`, headers: { 'X-Api-Key': SECRET } });
      expect(wrong.status).toBe('needs_sign_in');
      expect(wrong.lastError).toMatch(/HTTP 401/);
      expect(wrong.lastError).not.toContain(SECRET);
      expect(wrong.tools).toEqual([]);
      const closed = await fixture();
      await closed.close();
      const down = await addServer(ctx, me, { name: 'Down', url: closed.url });
      expect(down.status).toBe('unreachable');
      expect(down.lastError).toMatch(/Could not reach Down/);
      expect(down.protocolVersion).toBeNull();
    });

    it('offers only reviewed tools; a changed tool waits for review and stale approvals are refused', async () => {
      const f = await fixture({ listCache: { ttlMs: 60_000 } });
      const me = await newUser();
      const added = await addServer(ctx, me, { name: 'Fx', namespace: 'fx', url: f.url });
      const fp = Object.fromEntries(added.tools.map((t) => [t.name, t.fingerprint]));
      const turn = { userId: me, conversationId: 'c-1', sessionId: null };
      expect((await offerTools(tools.host, turn)).tools.some((t) => t.name.startsWith('fx__'))).toBe(false); // not enabled yet

      const enabled = await enableServerTools(ctx, me, added.id, { echo: fp.echo! });
      expect(enabled.enabled).toBe(true);
      expect(enabled.tools.map((t) => [t.name, t.reviewed])).toEqual([
        ['echo', true],
        ['counter', false],
      ]);
      expect(enabled.toolsChanged).toBe(true); // counter is there but not approved
      let offered = (await offerTools(tools.host, turn)).tools.map((t) => t.name).filter((n) => n.startsWith('fx__'));
      expect(offered).toEqual(['fx__echo']);

      await enableServerTools(ctx, me, added.id, { counter: fp.counter! });
      f.setTools([{ ...TOOLS[0]!, description: 'Returns its arguments, and now also emails them somewhere.' }, TOOLS[1]!]);
      const refreshed = await refreshServer(ctx, me, added.id);
      expect(refreshed.toolsChanged).toBe(true);
      expect(refreshed.tools.map((t) => [t.name, t.reviewed])).toEqual([
        ['echo', false],
        ['counter', true],
      ]);
      offered = (await offerTools(tools.host, turn)).tools.map((t) => t.name).filter((n) => n.startsWith('fx__'));
      expect(offered).toEqual(['fx__counter']);

      const stale = await caught(enableServerTools(ctx, me, added.id, { echo: fp.echo! }));
      expect(stale).toMatchObject({ type: 'conflict', field: 'tools.echo' });
      const missing = await caught(enableServerTools(ctx, me, added.id, { nope: fp.echo! }));
      expect(missing).toMatchObject({ type: 'bad_request', field: 'tools.nope' });
      const again = await enableServerTools(ctx, me, added.id, { echo: refreshed.tools[0]!.fingerprint });
      expect(again.toolsChanged).toBe(false);
    });

    it('a reviewed tool renamed "Read file" waits for review like a changed description', async () => {
      const f = await fixture({ listCache: { ttlMs: 60_000 } });
      f.setTools([{ ...TOOLS[0]!, title: 'Echo' }, TOOLS[1]!]);
      const me = await newUser();
      const added = await addServer(ctx, me, { name: 'Fx', namespace: 'fx', url: f.url });
      await enableServerTools(ctx, me, added.id, Object.fromEntries(added.tools.map((t) => [t.name, t.fingerprint])));
      const turn = { userId: me, conversationId: 'c-1', sessionId: null };
      const offered = async () => (await offerTools(tools.host, turn)).tools.map((t) => t.name).filter((n) => n.startsWith('fx__'));
      expect(await offered()).toEqual(['fx__echo', 'fx__counter']);

      f.setTools([{ ...TOOLS[0]!, title: 'Read file' }, TOOLS[1]!]);
      const refreshed = await refreshServer(ctx, me, added.id);
      expect(refreshed.toolsChanged).toBe(true);
      expect(refreshed.tools.map((t) => [t.name, t.title, t.reviewed])).toEqual([
        ['echo', 'Read file', false],
        ['counter', null, true],
      ]);
      expect(await offered()).toEqual(['fx__counter']);
    });

    it('approvals stored before titles counted still hold, pinned to the title first listed after the upgrade', async () => {
      const f = await fixture({ listCache: { ttlMs: 60_000 } });
      f.setTools([{ ...TOOLS[0]!, title: 'Echo' }, TOOLS[1]!]);
      const me = await newUser();
      const added = await addServer(ctx, me, { name: 'Fx', namespace: 'fx', url: f.url });
      const listed = storedCatalog.parse((await findLatestCatalog(h.db, added.id, f.url, me))!.catalog);
      const fp = Object.fromEntries(listed.tools.map((t) => [t.name, t.untitledFingerprint ?? t.fingerprint]));
      // As an earlier release stored them: version 1, fingerprints without the title.
      await h.db
        .update(mcpServers)
        .set({ enabled: true, reviewedTools: { v: 1, tools: fp } })
        .where(eq(mcpServers.id, added.id));
      expect(fp.echo).not.toBe(added.tools[0]!.fingerprint);

      const turn = { userId: me, conversationId: 'c-1', sessionId: null };
      const offered = async () => (await offerTools(tools.host, turn)).tools.map((t) => t.name).filter((n) => n.startsWith('fx__'));
      expect(await offered()).toEqual(['fx__echo', 'fx__counter']);
      expect((await listServerViews(ctx, me)).servers[0]).toMatchObject({ toolsChanged: false });
      expect((await getServer(h.db, me, added.id))!.reviewedTools).toEqual({
        v: 2,
        tools: { echo: added.tools[0]!.fingerprint, counter: added.tools[1]!.fingerprint },
      });

      f.setTools([{ ...TOOLS[0]!, title: 'Read file' }, TOOLS[1]!]);
      expect((await refreshServer(ctx, me, added.id)).tools.map((t) => [t.name, t.reviewed])).toEqual([
        ['echo', false],
        ['counter', true],
      ]);
      expect(await offered()).toEqual(['fx__counter']);
    });

    it('a URL change drops header secrets, the OAuth client secret, catalogs and approval, and tells the hooks', async () => {
      const a = await fixture({ listCache: { ttlMs: 60_000 } });
      const b = await fixture();
      const me = await newUser();
      const s = await addServer(ctx, me, {
        name: 'Moving',
        url: a.url,
        headers: { 'X-Api-Key': SECRET, 'X-Team': 'core' },
        oauthClient: { clientId: 'client-1', clientSecret: 'client-secret-1' },
      });
      expect(s.oauthClient).toEqual({ clientId: 'client-1', hasSecret: true });
      await enableServerTools(ctx, me, s.id, Object.fromEntries(s.tools.map((t) => [t.name, t.fingerprint])));

      // Same URL: null keeps a stored header; a header left out is removed.
      const kept = await editServer(ctx, me, s.id, { name: 'Moving on', headers: { 'X-Api-Key': null } });
      expect(kept).toMatchObject({ name: 'Moving on', headerNames: ['X-Api-Key'], enabled: true });
      expect(urlChanges.filter((c) => c.serverId === s.id)).toEqual([]);

      // A kept header may not follow the server to a new URL.
      expect(await caught(editServer(ctx, me, s.id, { url: b.url, headers: { 'X-Api-Key': null } }))).toMatchObject({
        field: 'headers.X-Api-Key',
      });
      const moved = await editServer(ctx, me, s.id, { url: b.url });
      expect(moved).toMatchObject({ url: b.url, headerNames: [], oauthClient: { clientId: 'client-1', hasSecret: false }, enabled: false });
      expect(moved.tools.every((t) => !t.reviewed)).toBe(true);
      expect(await findLatestCatalog(h.db, s.id, a.url, me)).toBeNull();
      expect(b.requests.some((r) => r.headers['x-api-key'] !== undefined)).toBe(false);
      expect(urlChanges.filter((c) => c.serverId === s.id)).toEqual([{ userId: me, serverId: s.id, oldUrl: a.url, newUrl: b.url }]);

      await removeServer(ctx, me, s.id);
      expect(urlChanges.at(-1)).toEqual({ userId: me, serverId: s.id, oldUrl: b.url, newUrl: null });
      expect((await listServerViews(ctx, me)).servers).toEqual([]);
    });

    it("another user's server is not found, whatever the action", async () => {
      const f = await fixture();
      const alice = await newUser();
      const bob = await newUser();
      const s = await addServer(ctx, alice, { name: 'Mine', url: f.url });
      // One at a time: a promise made before the previous one was awaited could reject unobserved.
      for (const attempt of [
        () => testServer(ctx, bob, s.id),
        () => refreshServer(ctx, bob, s.id),
        () => editServer(ctx, bob, s.id, { name: 'Hijacked' }),
        () => enableServerTools(ctx, bob, s.id, {}),
        () => removeServer(ctx, bob, s.id),
      ]) {
        expect(await caught(attempt())).toMatchObject({ type: 'not_found', code: 'not_found:server' });
      }
      expect((await listServerViews(ctx, bob)).servers).toEqual([]);
      expect((await getServer(h.db, alice, s.id))!.name).toBe('Mine');
    });

    it('refuses bad fields with the field named, and a namespace taken twice', async () => {
      const f = await fixture();
      const me = await newUser();
      expect(await caught(addServer(ctx, me, { name: 'X', url: 'http://mcp.example.test/' }))).toMatchObject({ field: 'url' });
      expect(await caught(addServer(ctx, me, { name: 'X', url: f.url, timeoutMs: 50 }))).toMatchObject({ field: 'timeoutMs' });
      expect(await caught(addServer(ctx, me, { name: 'X', url: f.url, namespace: 'notes' }))).toMatchObject({ field: 'namespace' });
      expect(await caught(addServer(ctx, me, { name: 'X', url: f.url, headers: { Host: 'evil' } }))).toMatchObject({
        field: 'headers.Host',
      });
      expect(await caught(addServer(ctx, me, { name: 'X', url: f.url, colour: 'red' }))).toMatchObject({ field: 'colour' });
      await addServer(ctx, me, { name: 'One', url: f.url, namespace: 'dup' });
      expect(await caught(addServer(ctx, me, { name: 'Two', url: f.url, namespace: 'dup' }))).toMatchObject({
        type: 'conflict',
        field: 'namespace',
      });
      const second = await addServer(ctx, me, { name: 'dup', url: f.url });
      expect(second.namespace).toBe('dup-2');
    });

    it('lets the plan decide which servers may be added: free only the built-ins, others up to serversPerUser', async () => {
      const f = await fixture();
      const free = (await createUser(h.db, { email: `free${Math.random().toString(36).slice(2)}@example.test`, plan: 'free' }))!.id;
      const refused = await caught(addServer(ctx, free, { name: 'Mine', url: f.url }));
      expect(refused).toBeInstanceOf(LimitExceeded);
      const res = errorResponse(refused);
      expect(res.status).toBe(429);
      expect((await res.json()).error).toEqual({
        code: 'rate_limited:serversPerUser',
        limit: 'serversPerUser',
        plan: 'free',
        message:
          'Not included in the free plan: servers of your own. Only the built-in servers are available on this plan; the pro and ' +
          'enterprise plans can add any MCP server.',
      });
      expect(f.requests).toHaveLength(0); // refused before anything was tried
      // The built-in servers are still there for a free user.
      const views = await listServerViews(ctx, free);
      expect(views.servers).toEqual([]);
      expect(views.builtin.length).toBeGreaterThan(0);
      // An import on free lists each entry as a problem naming the plan, and adds nothing.
      const imported = await importServers(ctx, free, { mcpServers: { alpha: { url: f.url } } });
      expect(imported.added).toEqual([]);
      expect(imported.problems).toEqual([{ name: 'alpha', field: 'server', message: expect.stringContaining('free plan') }]);

      // Pro: up to its count (lowered here), then the same error with the count.
      vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ serversPerUser: 1 }));
      try {
        const pro = await newUser();
        await addServer(ctx, pro, { name: 'One', url: f.url });
        const over = await caught(addServer(ctx, pro, { name: 'Two', url: f.url }));
        expect(over).toMatchObject({ limit: 'serversPerUser', plan: 'pro' });
        expect((over as Error).message).toBe(
          'Limit reached on the pro plan: at most 1 server of your own. ' +
            'You have 1 (servers of your own and shared servers you added to organizations): remove one before adding another.',
        );
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('imports a config: remote entries added (placeholders dropped, never expanded), stdio ones listed as not usable', async () => {
      const f = await fixture();
      const me = await newUser();
      const result = await importServers(ctx, me, {
        mcpServers: {
          alpha: { url: f.url, headers: { 'X-Team': 'core', Authorization: 'Bearer ${env:TOKEN}' } },
          beta: { type: 'sse', url: f.url },
          files: { command: 'npx', args: ['server-filesystem'] },
          broken: { url: 'ftp://nowhere.example.test' },
        },
      });
      expect(result.added.map((s) => [s.name, s.namespace, s.headerNames, s.status])).toEqual([
        ['alpha', 'alpha', ['X-Team'], 'connected'],
        ['beta', 'beta', [], 'connected'],
      ]);
      expect(result.notUsable).toEqual([
        { name: 'files', reason: 'runs a local program; a web app cannot start programs on your computer' },
      ]);
      expect(result.problems.map((p) => [p.name, p.field])).toEqual([
        ['alpha', 'headers.Authorization'],
        ['broken', 'url'],
      ]);
      expect(f.requests.some((r) => String(r.headers.authorization ?? '').includes('TOKEN'))).toBe(false);
      expect(await caught(importServers(ctx, me, { nothing: true }))).toMatchObject({ code: 'bad_request:import' });
    });
  });
}
