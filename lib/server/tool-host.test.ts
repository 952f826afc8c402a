import { randomBytes } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { findLatestCatalog } from '@/db/queries/tool-catalogs';
import { createUser } from '@/db/queries/users';
import { offerTools } from '@/lib/agent/tool-host';
import { allToolsOfOwnServers } from '@/lib/consent/grant-source';
import { BUILTIN_SERVERS } from '@/lib/mcp/builtin';
import { createSecretBox } from '@/lib/secrets/secret-box';
import { addServer, editServer, enableServerTools, listServerViews, type ServersContext } from '@/lib/servers/service';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { startFixtureServer, type FixtureOptions, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { createAppTools, guardedRemoteFetch } from './tool-host';

const noArgs = { type: 'object' as const, properties: {} };
const TOOLS: Tool[] = [
  { name: 'echo', description: 'Returns its arguments.', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
  { name: 'announce_tools_changed', description: 'Says the tool list changed.', inputSchema: noArgs },
];
const lists = (f: FixtureServer) => f.requests.filter((r) => r.rpc === 'tools/list').length;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`app tool host on ${kind}`, () => {
    let h: DbHandle;
    let tools: ReturnType<typeof createAppTools>;
    let ctx: ServersContext;
    const fixtures: FixtureServer[] = [];
    const box = createSecretBox(randomBytes(32));

    beforeAll(async () => {
      h = await openTestDb(kind);
      // Listing and caching, not consent (lib/consent/stored-grants.test.ts): every listed tool counts as granted.
      tools = createAppTools(h.db, { fetch: loopbackFetch, box: async () => box, grants: allToolsOfOwnServers });
      ctx = { db: h.db, box, remote: tools.remote, builtinListing: tools.builtinListing, allowLoopback: true };
    });
    afterAll(async () => {
      await Promise.all(fixtures.map((f) => f.close()));
      await h?.close();
    });

    /** A user with one enabled server on a fresh fixture; every tool reviewed. */
    async function enabledServer(opts: FixtureOptions = {}, headers?: Record<string, string>) {
      const fixture = await startFixtureServer({ tools: TOOLS, ...opts });
      fixtures.push(fixture);
      const user = (await createUser(h.db, { email: `th${Math.random().toString(36).slice(2)}@example.test` }))!.id;
      const added = await addServer(ctx, user, { name: 'Fx', namespace: 'fx', url: fixture.url, ...(headers && { headers }) });
      expect(added.status).toBe('connected');
      await enableServerTools(ctx, user, added.id, Object.fromEntries(added.tools.map((t) => [t.name, t.fingerprint])));
      const turn = { userId: user, conversationId: 'c-1', sessionId: null };
      const fxTools = async () => (await offerTools(tools.host, turn)).tools.map((t) => t.name).filter((n) => n.startsWith('fx__'));
      return { fixture, user, serverId: added.id, turn, fxTools };
    }

    it('serves the built-ins and the enabled servers, with headers opened for the gateway only', async () => {
      const { user, serverId } = await enabledServer({}, { 'X-Api-Key': 'header-secret' });
      const servers = await tools.host.serversFor(user);
      expect(servers.map((s) => s.id)).toEqual([...BUILTIN_SERVERS.map((s) => s.id), serverId]);
      expect(servers.at(-1)).toMatchObject({ namespace: 'fx', trust: 'untrusted', headers: { 'X-Api-Key': 'header-secret' } });
      const other = (await createUser(h.db, { email: `o${Math.random().toString(36).slice(2)}@example.test` }))!.id;
      expect((await tools.host.serversFor(other)).map((s) => s.id)).toEqual(BUILTIN_SERVERS.map((s) => s.id));
    });

    it('a disabled server, or one whose credentials cannot be opened, offers nothing', async () => {
      const { user, serverId, fxTools } = await enabledServer({}, { 'X-Api-Key': 'k' });
      expect(await fxTools()).toHaveLength(2);
      const otherKey = createSecretBox(randomBytes(32));
      const lost = createAppTools(h.db, { fetch: loopbackFetch, box: async () => otherKey, grants: allToolsOfOwnServers });
      expect((await lost.host.serversFor(user)).map((s) => s.id)).not.toContain(serverId);
      const view = await listServerViews({ ...ctx, box: otherKey }, user);
      expect(view.servers[0]).toMatchObject({ headerNames: [], lastError: expect.stringMatching(/cannot be read/) });
      const off = await editServer(ctx, user, serverId, { enabled: false });
      expect(off.enabled).toBe(false);
      expect(await fxTools()).toEqual([]);
    });

    it('a turn with a warm catalog makes zero tools/list requests', async () => {
      const { fixture, fxTools } = await enabledServer({ listCache: { ttlMs: 60_000 } });
      const before = lists(fixture);
      expect(await fxTools()).toEqual(['fx__echo', 'fx__announce_tools_changed']);
      expect(await fxTools()).toHaveLength(2);
      expect(lists(fixture)).toBe(before);
    });

    it('ttlMs 0 makes one tools/list per turn', async () => {
      const { fixture, fxTools } = await enabledServer({ listCache: { ttlMs: 0 } });
      const before = lists(fixture);
      await fxTools();
      expect(lists(fixture)).toBe(before + 1);
      await fxTools();
      expect(lists(fixture)).toBe(before + 2);
    });

    it('a legacy server (no ttlMs) is kept for the default TTL', async () => {
      const { fixture, fxTools } = await enabledServer({ legacyOnly: true });
      const before = lists(fixture);
      expect(await fxTools()).toHaveLength(2);
      await fxTools();
      expect(lists(fixture)).toBe(before);
    });

    it('a private list is never shared between users; a public one is', async () => {
      const fixture = await startFixtureServer({ tools: TOOLS, listCache: { ttlMs: 60_000, cacheScope: 'private' } });
      const shared = await startFixtureServer({ tools: TOOLS, listCache: { ttlMs: 60_000, cacheScope: 'public' } });
      fixtures.push(fixture, shared);
      const config = (url: string, id: string) => ({
        id,
        namespace: 'fx',
        displayName: 'Fx',
        url,
        trust: 'untrusted' as const,
        timeoutMs: 5000,
      });
      const alice = { userId: '00000000-0000-4000-8000-0000000000a1' };
      const bob = { userId: '00000000-0000-4000-8000-0000000000b1' };
      for (const [f, id] of [
        [fixture, 'private-scope'],
        [shared, 'public-scope'],
      ] as const) {
        await tools.remote.listTools(config(f.url, id), alice);
        await tools.remote.listTools(config(f.url, id), alice);
        expect(lists(f)).toBe(1);
        await tools.remote.listTools(config(f.url, id), bob);
      }
      expect(lists(fixture)).toBe(2); // bob listed for himself
      expect(lists(shared)).toBe(1); // bob used the public list
      expect(await findLatestCatalog(h.db, 'private-scope', fixture.url, bob.userId)).toMatchObject({ scope: bob.userId });
    });

    it('a call naming a tool the kept list lacks, or a tools/list_changed notification, makes the next turn list again', async () => {
      const { fixture, user, fxTools, turn } = await enabledServer({ listCache: { ttlMs: 60_000 } });
      const server = (await tools.host.serversFor(user)).at(-1)!;
      const call = (tool: string) =>
        tools.host.gateway.callTool(
          server,
          tool,
          {},
          { caller: { userId: user, conversationId: turn.conversationId }, signal: new AbortController().signal, timeoutMs: 5000 },
        );

      let before = lists(fixture);
      await call('echo'); // listed: nothing changes
      await fxTools();
      expect(lists(fixture)).toBe(before);

      await call('not_in_the_list');
      await fxTools();
      expect(lists(fixture)).toBe(before + 1);

      before = lists(fixture);
      expect((await call('announce_tools_changed')).kind).toBe('result');
      await new Promise((r) => setTimeout(r, 100)); // the drop runs beside the call
      await fxTools();
      expect(lists(fixture)).toBe(before + 1);
    });

    it('keeps the built-in catalogs in memory, never in the database', async () => {
      const user = (await createUser(h.db, { email: `b${Math.random().toString(36).slice(2)}@example.test` }))!.id;
      const notes = BUILTIN_SERVERS[0]!;
      const first = await tools.builtinListing(notes);
      expect(first.tools.length).toBeGreaterThan(0);
      expect(await tools.builtinListing(notes)).toBe(first);
      const viaHost = await tools.host.gateway.listTools(notes, { userId: user });
      expect(viaHost.tools).toBe(first.tools);
      expect(await findLatestCatalog(h.db, notes.id, notes.url, user)).toBeNull();
    });

    it('the default remote fetch is the URL guard: loopback only with MCP_ALLOW_LOOPBACK=true', async () => {
      const fixture = await startFixtureServer({ tools: TOOLS });
      fixtures.push(fixture);
      const server = {
        id: 'guarded',
        namespace: 'g',
        displayName: 'Guarded',
        url: fixture.url,
        trust: 'untrusted' as const,
        timeoutMs: 5000,
      };
      // A real user: the connection first looks for the user's OAuth credential for this server.
      const userId = (await createUser(h.db, { email: `g${Math.random().toString(36).slice(2)}@example.test` }))!.id;
      const refused = createAppTools(h.db, { fetch: guardedRemoteFetch({}), box: async () => box });
      const listedRefused = await refused.remote.listTools(server, { userId }, { refresh: true });
      expect(listedRefused.error).toMatch(/refused to connect|loopback|this machine/);
      expect(listedRefused.failure).toBe('unreachable');
      const allowed = createAppTools(h.db, { fetch: guardedRemoteFetch({ MCP_ALLOW_LOOPBACK: 'true' }), box: async () => box });
      const listed = await allowed.remote.listTools(server, { userId }, { refresh: true });
      expect(listed.error).toBeUndefined();
      expect(listed.tools.map((t) => t.name)).toEqual(['echo', 'announce_tools_changed']);
    });
  });
}
