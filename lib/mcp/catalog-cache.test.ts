import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';
import { fixtureConfig } from '@/test/tool-harness';

import { withCatalogCache } from './catalog-cache';
import { createMcpGateway } from './gateway';

const listings = (f: FixtureServer) => f.requests.length;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`tool catalog cache on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('keeps a legacy server list for the default TTL, per user, and lists again after it or on refresh', async () => {
      const fixture = await startFixtureServer({ legacyOnly: true });
      let clock = new Date('2026-11-01T00:00:00Z');
      const gw = withCatalogCache(createMcpGateway({ fetch: loopbackFetch }), h.db, { legacyTtlMs: 60_000, now: () => clock });
      const server = fixtureConfig(fixture.url);
      const alice = { userId: '00000000-0000-4000-8000-00000000000a' };
      const first = await gw.listTools(server, alice);
      expect(first.tools.map((t) => t.name)).toContain('echo');
      const afterFirst = listings(fixture);
      const second = await gw.listTools(server, alice);
      expect(listings(fixture)).toBe(afterFirst); // served from the cache
      expect(second.tools.map((t) => t.fingerprint)).toEqual(first.tools.map((t) => t.fingerprint));
      expect(second.server).toBe(server);

      await gw.listTools(server, { userId: '00000000-0000-4000-8000-00000000000b' });
      expect(listings(fixture)).toBeGreaterThan(afterFirst); // private: another user lists for themselves
      const afterBob = listings(fixture);

      clock = new Date(clock.getTime() + 61_000);
      await gw.listTools(server, alice);
      expect(listings(fixture)).toBeGreaterThan(afterBob); // expired
      const afterExpiry = listings(fixture);
      await gw.listTools(server, alice, { refresh: true });
      expect(listings(fixture)).toBeGreaterThan(afterExpiry);
      // A changed URL never reads the old list.
      const moved = await gw.listTools({ ...server, url: `${fixture.url}?moved=1` }, alice);
      expect(moved.tools.length).toBeGreaterThan(0);
      await fixture.close();
    });

    it('holds a fresh list in memory for a moment: read once per turn, dropped here at once, elsewhere within the moment', async () => {
      const fixture = await startFixtureServer({ listCache: { ttlMs: 600_000 } });
      let clock = new Date('2026-11-01T00:00:00Z');
      const here = withCatalogCache(createMcpGateway({ fetch: loopbackFetch }), h.db, { now: () => clock, memoMs: 10_000 });
      const elsewhere = withCatalogCache(createMcpGateway({ fetch: loopbackFetch }), h.db, { now: () => clock });
      const server = { ...fixtureConfig(fixture.url), id: 'memo-fixture' };
      const caller = { userId: '00000000-0000-4000-8000-00000000000d' };
      await here.listTools(server, caller);
      const listed = listings(fixture);
      await here.listTools(server, caller);
      expect(listings(fixture)).toBe(listed);

      elsewhere.dropLists(server); // another instance heard list_changed
      await expect.poll(() => elsewhere.lastListing(server, caller)).toBeNull();
      await here.listTools(server, caller);
      expect(listings(fixture)).toBe(listed); // still the held copy…
      clock = new Date(clock.getTime() + 10_000);
      await here.listTools(server, caller);
      expect(listings(fixture)).toBeGreaterThan(listed); // …for the moment only
      const again = listings(fixture);

      here.dropLists(server);
      await expect.poll(() => here.lastListing(server, caller)).toBeNull();
      await here.listTools(server, caller);
      expect(listings(fixture)).toBeGreaterThan(again); // dropped here: listed at once
      await fixture.close();
    });

    it('does not keep a modern server list that says ttlMs 0, nor a failed listing', async () => {
      const fixture = await startFixtureServer();
      const gw = withCatalogCache(createMcpGateway({ fetch: loopbackFetch }), h.db);
      const server = { ...fixtureConfig(fixture.url), id: 'modern-fixture' };
      const caller = { userId: '00000000-0000-4000-8000-00000000000c' };
      await gw.listTools(server, caller);
      const n = listings(fixture);
      await gw.listTools(server, caller);
      expect(listings(fixture)).toBeGreaterThan(n);
      await fixture.close();
      const down = await gw.listTools(server, caller);
      expect(down.error).toBeTruthy();
      expect(down.tools).toEqual([]);
    });
  });
}
