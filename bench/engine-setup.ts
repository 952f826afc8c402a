import { randomBytes, randomUUID } from 'node:crypto';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { getRun } from '@/db/queries/runs';
import { updateServer } from '@/db/queries/servers';
import { listToolCallsOfRuns } from '@/db/queries/tool-calls';
import { createUser } from '@/db/queries/users';
import type { EventBus } from '@/lib/agent/bus';
import { trackedSchedule, type EngineDeps } from '@/lib/agent/deps';
import { startRun } from '@/lib/agent/engine';
import type { ToolHost } from '@/lib/agent/tool-host';
import { allToolsOfOwnServers, staticGrants } from '@/lib/consent/grant-source';
import { createSecretBox } from '@/lib/secrets/secret-box';
import { buildEngineDeps } from '@/lib/server/engine-deps';
import { createAppTools } from '@/lib/server/tool-host';
import { addServer, enableServerTools, refreshServer } from '@/lib/servers/service';
import { loopbackFetch } from '@/test/loopback-fetch';

import type { BenchModel } from './model-script';

export { WARM_UP_TEXT } from './model-script';

/**
 * The engine as the app wires it (`buildEngineDeps`, the app's tool host with its catalog cache
 * in the database), on a bench database, with a user whose one enabled server is a fixture MCP
 * server on 127.0.0.1 (added and reviewed through the servers use-cases, as a person would).
 * The server is trusted and its grants are stated (`staticGrants`: every tool of it runs without
 * asking), so a turn never waits for a person; the built-in path (`builtinEngine`) uses the
 * stored grants.
 */

export type BenchEngine = EngineDeps & { bus: EventBus; drain(): Promise<void> };

export const BENCH_MODEL_NAME = 'claude-test';

export interface BenchUser {
  userId: string;
  serverId: string;
  tools: ToolHost;
}

function engineOn(handle: DbHandle, model: BenchModel, tools: ToolHost): BenchEngine {
  const work = trackedSchedule((err) => console.error('[bench] background work failed', err));
  const deps = buildEngineDeps(handle, {
    role: 'bench',
    schedule: work.schedule,
    tools,
    model: { client: model.client, model: BENCH_MODEL_NAME },
  });
  return { ...deps, drain: work.idle };
}

async function benchUser(handle: DbHandle): Promise<string> {
  const user = await createUser(handle.db, { email: `bench-${randomUUID()}@example.test`, passwordHash: 'x', plan: 'enterprise' });
  return user!.id;
}

/** A user with the fixture at `mcpUrl` added and every tool of it reviewed and enabled. */
export async function userWithServer(handle: DbHandle, mcpUrl: string): Promise<BenchUser> {
  const box = createSecretBox(randomBytes(32));
  const setup = createAppTools(handle.db, { fetch: loopbackFetch, box: async () => box, grants: allToolsOfOwnServers });
  const userId = await benchUser(handle);
  const ctx = { db: handle.db, box, remote: setup.remote, builtinListing: setup.builtinListing, allowLoopback: true };
  const added = await addServer(ctx, userId, { name: 'Bench fixture', namespace: 'fx', url: mcpUrl });
  if (added.status !== 'connected') throw new Error(`the bench fixture server did not connect: ${added.lastError}`);
  // Trusted both ways, as an operator's vetted server is: an untrusted one taints the conversation as
  // soon as its tools are offered (its results, unless its content is trusted), and every call then
  // waits for a person (lib/consent/policy.ts). The kept catalog carries the trust it was listed under: list again.
  await updateServer(handle.db, userId, added.id, { trust: 'trusted', trustContent: true }, { urlChanged: false });
  const listed = await refreshServer(ctx, userId, added.id);
  await enableServerTools(ctx, userId, added.id, Object.fromEntries(listed.tools.map((t) => [t.name, t.fingerprint])));
  const app = createAppTools(handle.db, {
    fetch: loopbackFetch,
    box: async () => box,
    grants: staticGrants({ [`${added.id}/*`]: { autoApprove: true } }),
  });
  return { userId, serverId: added.id, tools: app.host };
}

/** The engine calling the remote fixture server's tools. */
export async function remoteEngine(handle: DbHandle, model: BenchModel, mcpUrl: string): Promise<{ engine: BenchEngine; user: BenchUser }> {
  const user = await userWithServer(handle, mcpUrl);
  return { engine: engineOn(handle, model, user.tools), user };
}

/** The engine with the app's tool host as it is (built-in servers, stored grants): `notes__search` is on by default. */
export async function builtinEngine(handle: DbHandle, model: BenchModel): Promise<{ engine: BenchEngine; userId: string }> {
  const app = createAppTools(handle.db);
  return { engine: engineOn(handle, model, app.host), userId: await benchUser(handle) };
}

export async function newConversation(handle: DbHandle, userId: string): Promise<string> {
  return (await createConversation(handle.db, { userId, model: BENCH_MODEL_NAME })).id;
}

/** One turn through `startRun`, until its drive is done; throws unless it completed. */
export async function turn(engine: BenchEngine, userId: string, conversationId: string, text: string): Promise<string> {
  const { run } = await startRun(engine, { conversationId, userId, sessionId: null, text });
  await engine.drain();
  return run.id;
}

export async function expectCompleted(handle: DbHandle, runId: string): Promise<void> {
  const done = await getRun(handle.db, runId);
  if (done?.status !== 'completed') {
    const calls = await listToolCallsOfRuns(handle.db, done?.conversationId ?? '', [runId]);
    const why = calls.map((c) => `${c.modelName}: ${c.status} ${JSON.stringify(c.verdict)}`).join('; ');
    throw new Error(`a bench turn ended ${done?.status}: ${JSON.stringify(done?.error)} ${why}`);
  }
}
