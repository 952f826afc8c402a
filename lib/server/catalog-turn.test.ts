import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getRun } from '@/db/queries/runs';
import { updateServer } from '@/db/queries/servers';
import { startRun } from '@/lib/agent/engine';
import { allToolsOfOwnServers, staticGrants } from '@/lib/consent/grant-source';
import { createSecretBox } from '@/lib/secrets/secret-box';
import { addServer, enableServerTools, refreshServer } from '@/lib/servers/service';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureOptions, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { loopbackFetch } from '@/test/loopback-fetch';
import { text, toolUse } from '@/test/tool-harness';

import { createAppTools } from './tool-host';

/**
 * Issue 12: a whole tool turn (two model steps, the re-check before the call, the call) through
 * the app's tool host sends no `tools/list` when the catalog is warm; a server that says
 * `ttlMs: 0` is listed again on every step (the control, so the count is known to see listings).
 */

const lists = (f: FixtureServer, from = 0) => f.requests.slice(from).filter((r) => r.rpc === 'tools/list').length;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`tools/list requests of a turn on ${kind}`, () => {
    let h: DbHandle;
    const fixtures: FixtureServer[] = [];
    const box = createSecretBox(randomBytes(32));
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => {
      await Promise.all(fixtures.map((f) => f.close()));
      await h?.close();
    });

    /** A tool turn calling fx__echo on a trusted, enabled fixture server (every call auto-approved); returns its tools/list count. */
    async function toolTurnLists(listCache: FixtureOptions['listCache']) {
      const fixture = await startFixtureServer({ listCache });
      fixtures.push(fixture);
      const { user, conversation } = await userAndConversation(h);
      const setup = createAppTools(h.db, { fetch: loopbackFetch, box: async () => box, grants: allToolsOfOwnServers });
      const ctx = { db: h.db, box, remote: setup.remote, builtinListing: setup.builtinListing, allowLoopback: true };
      const added = await addServer(ctx, user.id, { name: 'Fx', namespace: 'fx', url: fixture.url });
      await updateServer(h.db, user.id, added.id, { trust: 'trusted' }, { urlChanged: false });
      const listed = await refreshServer(ctx, user.id, added.id); // the kept list carries the trust it was listed under
      await enableServerTools(ctx, user.id, added.id, Object.fromEntries(listed.tools.map((t) => [t.name, t.fingerprint])));
      const tools = createAppTools(h.db, {
        fetch: loopbackFetch,
        box: async () => box,
        grants: staticGrants({ [`${added.id}/*`]: { autoApprove: true } }),
      }).host;
      const model = await startScriptedModel([
        { blocks: [toolUse('tu_echo', 'fx__echo', { message: 'hi' })] },
        { blocks: [text('Done.')] },
      ]);
      const deps = engineDeps(h, { client: model.client, modelName: 'claude-test', tools });
      const before = fixture.requests.length;
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'echo hi' });
      await deps.idle();
      await model.close();
      expect((await getRun(h.db, run.id))?.status).toBe('completed');
      expect(fixture.calls.map((c) => c.name)).toEqual(['echo']);
      return lists(fixture, before);
    }

    it('a tool turn with a warm catalog sends no tools/list', async () => {
      expect(await toolTurnLists({ ttlMs: 60_000 })).toBe(0);
    });

    it('a server that says ttlMs 0 is listed again on each step of the turn', async () => {
      expect(await toolTurnLists({ ttlMs: 0 })).toBeGreaterThanOrEqual(2);
    });
  });
}
