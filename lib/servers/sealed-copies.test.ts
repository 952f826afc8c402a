import { randomBytes } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getServer } from '@/db/queries/servers';
import { createUser } from '@/db/queries/users';
import { mcpServers } from '@/db/schema';
import { offerTools } from '@/lib/agent/tool-host';
import { allToolsOfOwnServers } from '@/lib/consent/grant-source';
import { AppError } from '@/lib/http/errors';
import { createSecretBox } from '@/lib/secrets/secret-box';
import { createAppTools } from '@/lib/server/tool-host';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { startServerSignIn, type ServersOAuthContext } from './oauth';
import { addServer, editServer, enableServerTools, listServerViews, testServer, type ServersContext } from './service';
import { CREDENTIALS_UNREADABLE } from './view';

/**
 * A sealed value copied into another server's row — of the same person or another's — by someone
 * with write access to the database (or by a bug) does not open there: the server is treated as
 * one whose credentials cannot be read, and the copied secret is never sent to its URL.
 */

const SECRET = 'sk-live-alice-4711';
const TOOLS: Tool[] = [{ name: 'echo', description: 'Returns its arguments.', inputSchema: { type: 'object', properties: {} } }];

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`sealed server secrets copied to another row, on ${kind}`, () => {
    let h: DbHandle;
    let ctx: ServersContext;
    let tools: ReturnType<typeof createAppTools>;
    const fixtures: FixtureServer[] = [];
    const box = createSecretBox(randomBytes(32));
    let logged = '';

    beforeAll(async () => {
      h = await openTestDb(kind);
      tools = createAppTools(h.db, { fetch: loopbackFetch, box: async () => box, grants: allToolsOfOwnServers });
      ctx = { db: h.db, box, remote: tools.remote, builtinListing: tools.builtinListing, allowLoopback: true };
      for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) {
        vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void (logged += `${args.map(String).join(' ')}\n`));
      }
    });
    afterAll(async () => {
      vi.restoreAllMocks();
      expect(logged).not.toContain(SECRET);
      await Promise.all(fixtures.map((f) => f.close()));
      await h?.close();
    });

    async function fixture(opts: Parameters<typeof startFixtureServer>[0] = {}) {
      const f = await startFixtureServer({ tools: TOOLS, ...opts });
      fixtures.push(f);
      return f;
    }
    const newUser = async () => (await createUser(h.db, { email: `sc${randomBytes(4).toString('hex')}@example.test` }))!.id;
    const sealedOf = async (id: string) => (await h.db.select().from(mcpServers).where(eq(mcpServers.id, id)))[0]!;
    const copy = (from: typeof mcpServers.$inferSelect, to: string) =>
      h.db
        .update(mcpServers)
        .set({
          headersSealed: from.headersSealed,
          oauthClientId: from.oauthClientId,
          oauthClientSecretSealed: from.oauthClientSecretSealed,
        })
        .where(eq(mcpServers.id, to));
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );

    it("another user's header secret pasted into a server row does not open there, and is never sent to that server", async () => {
      const aliceServer = await fixture({ requireHeader: { name: 'X-Api-Key', value: SECRET } });
      // Bob's server is anyone's URL: were the copy to open, Alice's key would be sent there.
      const bobServer = await fixture();
      const alice = await newUser();
      const bob = await newUser();
      const a = await addServer(ctx, alice, { name: 'Weather', url: aliceServer.url, headers: { 'X-Api-Key': SECRET } });
      const b = await addServer(ctx, bob, { name: 'Mine', url: bobServer.url, headers: { 'X-Api-Key': 'bob-own' } });
      expect([a.status, b.status]).toEqual(['connected', 'connected']);
      await enableServerTools(ctx, bob, b.id, Object.fromEntries(b.tools.map((t) => [t.name, t.fingerprint])));

      await copy(await sealedOf(a.id), b.id);

      // The page says so in words; no header names, no crash.
      const [view] = (await listServerViews(ctx, bob)).servers;
      expect(view).toMatchObject({ id: b.id, headerNames: [], lastError: CREDENTIALS_UNREADABLE });
      // A turn leaves the server out rather than fail (lib/server/tool-host.ts).
      const offered = (await offerTools(tools.host, { userId: bob, conversationId: 'c-1', sessionId: null })).tools.map((t) => t.name);
      expect(offered.filter((n) => n.startsWith('mine__'))).toEqual([]);
      // Testing it tries the server without the unreadable headers.
      await testServer(ctx, bob, b.id);
      // Enabling again is refused in words the person can act on.
      const refused = await refusal(enableServerTools(ctx, bob, b.id, {}));
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ type: 'conflict', message: CREDENTIALS_UNREADABLE, field: 'headers' });
      // Alice's key never reached Bob's server.
      expect(bobServer.requests.length).toBeGreaterThan(0);
      expect(bobServer.requests.some((r) => JSON.stringify(r.headers).includes(SECRET))).toBe(false);

      // Entering the headers again seals them for Bob's row; Alice's server is untouched.
      const fixed = await editServer(ctx, bob, b.id, { headers: { 'X-Api-Key': 'bob-new' } });
      expect(fixed).toMatchObject({ headerNames: ['X-Api-Key'], lastError: null });
      await testServer(ctx, bob, b.id);
      expect(bobServer.requests.at(-1)!.headers['x-api-key']).toBe('bob-new');
      expect((await testServer(ctx, alice, a.id)).status).toBe('connected');
    });

    it("one of the person's own servers' secrets pasted into another of their servers does not open there either", async () => {
      const f = await fixture({ requireHeader: { name: 'X-Api-Key', value: SECRET } });
      const other = await fixture();
      const me = await newUser();
      const first = await addServer(ctx, me, { name: 'First', url: f.url, headers: { 'X-Api-Key': SECRET } });
      const second = await addServer(ctx, me, { name: 'Second', url: other.url });
      await copy(await sealedOf(first.id), second.id);
      const views = (await listServerViews(ctx, me)).servers;
      expect(views.map((v) => [v.name, v.headerNames, v.lastError === CREDENTIALS_UNREADABLE])).toEqual([
        ['First', ['X-Api-Key'], false],
        ['Second', [], true],
      ]);
      await testServer(ctx, me, second.id);
      expect(other.requests.some((r) => JSON.stringify(r.headers).includes(SECRET))).toBe(false);
      // A row moved to another user (its user_id rewritten) is not theirs to open either.
      const thief = await newUser();
      await h.db.update(mcpServers).set({ userId: thief }).where(eq(mcpServers.id, first.id));
      expect((await listServerViews(ctx, thief)).servers[0]).toMatchObject({ id: first.id, lastError: CREDENTIALS_UNREADABLE });
    });

    it("a pre-registered OAuth client secret pasted into another user's server refuses the sign-in, in words", async () => {
      const alice = await newUser();
      const bob = await newUser();
      const f = await fixture();
      const a = await addServer(ctx, alice, { name: 'Provider', url: f.url, oauthClient: { clientId: 'client-a', clientSecret: SECRET } });
      const b = await addServer(ctx, bob, { name: 'Provider', url: f.url });
      await copy(await sealedOf(a.id), b.id);
      expect((await getServer(h.db, bob, b.id))!.oauthClientId).toBe('client-a');
      const oauthCtx: ServersOAuthContext = { ...ctx, oauthFetch: loopbackFetch, appOrigin: 'http://127.0.0.1:9' };
      const refused = await refusal(startServerSignIn(oauthCtx, { userId: bob, sessionId: 'no-session' }, b.id, '/servers'));
      expect(refused).toMatchObject({ type: 'conflict', message: CREDENTIALS_UNREADABLE, field: 'oauthClient' });
      expect(f.requests.some((r) => JSON.stringify(r.headers).includes(SECRET))).toBe(false);
    });
  });
}
