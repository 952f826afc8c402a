import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { mcpSessions } from '@/db/schema';
import { trackedSchedule } from '@/lib/agent/deps';
import type { ChatRuntime } from '@/lib/chat/runtime';
import { remove } from '@/lib/chat/service';
import { allToolsOfOwnServers } from '@/lib/consent/grant-source';
import { SESSION_IDLE_MS } from '@/lib/mcp/legacy-sessions';
import type { CallOutcome, McpServerConfig } from '@/lib/mcp/types';
import { getModelConfig } from '@/lib/model/client';
import { sweep } from '@/lib/ops/sweep';
import { createSecretBox } from '@/lib/secrets/secret-box';
import { disconnectServer } from '@/lib/servers/oauth';
import { addServer, editServer, enableServerTools, removeServer, type ServersContext } from '@/lib/servers/service';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startStatefulLegacyServer, type StatefulLegacyServer } from '@/test/fixtures/stateful-legacy-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { buildEngineDeps } from './engine-deps';
import { createAppTools } from './tool-host';

/**
 * The app's wiring of kept MCP sessions (lib/mcp/legacy-sessions.ts): the tool host's calls keep
 * a 2025-era server's session for the conversation; the sweep ends idle ones; deleting the
 * conversation ends its own; a server's URL change or removal forgets its sessions.
 */

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`kept MCP sessions in the app on ${kind}`, () => {
    let h: DbHandle;
    let fixture: StatefulLegacyServer;
    let tools: ReturnType<typeof createAppTools>;
    let ctx: ServersContext;
    const box = createSecretBox(randomBytes(32));

    beforeAll(async () => {
      h = await openTestDb(kind);
      fixture = await startStatefulLegacyServer();
      tools = createAppTools(h.db, { fetch: loopbackFetch, box: async () => box, grants: allToolsOfOwnServers });
      ctx = { db: h.db, box, remote: tools.remote, builtinListing: tools.builtinListing, allowLoopback: true };
    });
    afterAll(async () => {
      await fixture?.close();
      await h?.close();
    });

    /** A conversation of a user whose enabled server is the stateful fixture. */
    async function conversationWithServer() {
      const { user, conversation } = await userAndConversation(h);
      const added = await addServer(ctx, user.id, { name: 'Stateful', namespace: 'stateful', url: fixture.url });
      expect(added.status).toBe('connected');
      await enableServerTools(ctx, user.id, added.id, Object.fromEntries(added.tools.map((t) => [t.name, t.fingerprint])));
      const server = (await tools.host.serversFor(user.id)).find((s) => s.id === added.id)!;
      const caller = { userId: user.id, conversationId: conversation.id };
      const call = (tool: string, args = {}, on: McpServerConfig = server) =>
        tools.host.gateway.callTool(on, tool, args, { caller, signal: new AbortController().signal, timeoutMs: 10_000 }).then(textOf);
      const kept = () => h.db.select().from(mcpSessions).where(eq(mcpSessions.conversationId, conversation.id));
      return { user, conversation, server, call, kept };
    }

    it('keeps the state between calls of a conversation', async () => {
      const { call } = await conversationWithServer();
      expect(await call('remember', { word: 'quince' })).toBe('Remembered quince.');
      expect(await call('recall')).toBe('quince');
    });

    it('the sweep ends sessions idle past the timeout', async () => {
      const { call, kept } = await conversationWithServer();
      await call('remember', { word: 'medlar' });
      const [row] = await kept();
      const engine = engineDeps(h, { tools: tools.host });
      const done = await sweep(engine, h.db, await engine.auditKeys(), new Date(Date.now() + SESSION_IDLE_MS + 1_000));
      expect(done.idleSessions.forgotten).toBeGreaterThanOrEqual(1);
      expect(fixture.ended).toContain(row!.sessionId);
      expect(await kept()).toHaveLength(0);
    });

    it('deleting the conversation ends its sessions', async () => {
      const { user, conversation, call, kept } = await conversationWithServer();
      await call('remember', { word: 'sorb' });
      const [row] = await kept();
      const engine = buildEngineDeps(h, { schedule: trackedSchedule().schedule, tools: tools.host });
      const rt: ChatRuntime = {
        handle: h,
        engine,
        modelConfig: getModelConfig(),
        models: engine.models,
        tools: { host: tools.host, connectDeps: tools.connectDeps },
      };
      await remove(rt, user.id, conversation.id);
      expect(fixture.ended).toContain(row!.sessionId);
      expect(await kept()).toHaveLength(0);
    });

    it('changing the server’s URL or removing it forgets its sessions', async () => {
      const { user, server, call, kept } = await conversationWithServer();
      await call('remember', { word: 'rowan' });
      expect(await kept()).toHaveLength(1);
      await editServer(ctx, user.id, server.id, { url: `${fixture.url}?moved=1` });
      expect(await kept()).toHaveLength(0);
      const moved = (await tools.host.serversFor(user.id)).find((s) => s.id === server.id)!;
      expect(await call('recall', {}, moved)).toBe('nothing');
      expect(await kept()).toHaveLength(1);
      await removeServer(ctx, user.id, server.id);
      expect(await kept()).toHaveLength(0);
    });

    it('disconnecting the server’s sign-in forgets its sessions (the next sign-in may be another account)', async () => {
      const { user, server, call, kept } = await conversationWithServer();
      await call('remember', { word: 'haw' });
      expect(await kept()).toHaveLength(1);
      await disconnectServer({ ...ctx, oauthFetch: loopbackFetch, appOrigin: 'http://127.0.0.1:3000' }, user.id, server.id);
      expect(await kept()).toHaveLength(0);
    });
  });
}

function textOf(outcome: CallOutcome): string {
  if (outcome.kind !== 'result') return `[${outcome.kind}: ${'message' in outcome ? outcome.message : ''}]`;
  return (outcome.result.content ?? []).map((c) => (c.type === 'text' ? String(c.text) : `[${c.type}]`)).join('\n');
}
