import { after } from 'next/server';

import type { DbHandle } from '@/db/connection';
import type { EventBus } from '@/lib/agent/bus';
import type { EngineDeps } from '@/lib/agent/deps';
import { streamTimingFrom } from '@/lib/agent/sse';
import { createStreamRegistry, type StreamRegistry } from '@/lib/agent/sse-streams';
import { getAuthSecret } from '@/lib/auth/secret';
import type { ChatRuntime } from '@/lib/chat/runtime';
import { readConfig } from '@/lib/config';
import { requestStateKey } from '@/lib/gateway/elicit-approval';
import type { McpEndpoint } from '@/lib/gateway/endpoint';
import { createGatewayEndpoint } from '@/lib/gateway/service';
import { errorSummary } from '@/lib/log-safe';
import { startBackgroundRefresh } from '@/lib/mcp/oauth/refresh-ahead';
import { getModelConfig, type ModelConfig } from '@/lib/model/client';
import type { ModelCatalog } from '@/lib/model/models';
import { createAppMetrics, type AppMetrics } from '@/lib/ops/metrics';
import { loadOncePerProcess } from '@/lib/process-singleton';

import { getDbHandle } from './database';
import { buildEngineDeps } from './engine-deps';
import { eventBusFrom } from './event-bus';
import { createAppTools, type AppTools } from './tool-host';

/** The process-wide wiring; what the conversation use-cases need of it is `ChatRuntime`. */
export interface Runtime extends ChatRuntime {
  handle: DbHandle;
  bus: EventBus;
  secret: string;
  modelConfig: ModelConfig;
  /** The models a conversation may choose (the endpoint's listing, cached); the engine reads their limits from it. */
  models: ModelCatalog;
  engine: EngineDeps;
  /** The tool host and what the servers page needs of it (remote catalogs, built-in listings). */
  tools: AppTools;
  /** The open event streams of this process, for the per-user and per-conversation caps. */
  streams: StreamRegistry;
  streamTiming: { pingMs: number; pausedIdleMs: number };
  /** What GET /api/metrics exposes; the engine reports to it through `engine.observe`. */
  metrics: AppMetrics;
  /** `/mcp`: the person's exposed tools for MCP clients (lib/gateway). */
  mcp: McpEndpoint;
}

/** The process-wide wiring, built on first use (never at import: `next build` imports routes). */
export function getRuntime(): Promise<Runtime> {
  return loadOncePerProcess('runtime', build);
}

async function build(): Promise<Runtime> {
  const secret = await getAuthSecret();
  const handle = await getDbHandle();
  const modelConfig = getModelConfig();
  const tools = createAppTools(handle.db);
  const streams = createStreamRegistry();
  const metrics = createAppMetrics({ streams, handle });
  // REDIS_URL: Redis pub/sub between instances; else the database's LISTEN/NOTIFY (./event-bus.ts).
  const { bus } = eventBusFrom(handle);
  const engine = buildEngineDeps(handle, { schedule: runAfterResponse, titles: true, tools: tools.host, observe: metrics.observer, bus });
  // People's OAuth tokens refreshed ahead of expiry on every instance (one refresh per token across them); 0 turns it off.
  const refreshEvery = readConfig().OAUTH_REFRESH_INTERVAL_MS;
  if (refreshEvery > 0) startBackgroundRefresh(tools.oauthStore, refreshEvery);
  return {
    handle,
    bus: engine.bus,
    secret,
    modelConfig,
    models: engine.models,
    engine,
    tools,
    streams,
    streamTiming: streamTimingFrom(),
    metrics,
    mcp: createGatewayEndpoint({
      db: handle.db,
      tools: tools.host,
      connectDeps: tools.connectDeps,
      auditKeys: engine.auditKeys,
      bus: engine.bus,
      approvalWaitMs: readConfig().MCP_APPROVAL_WAIT_MS,
      askWaitMs: readConfig().MCP_ASK_WAIT_MS,
      stateKey: requestStateKey(secret),
      // switchboard_ask starts turns with the chat's own wiring.
      chat: { handle, engine, modelConfig, models: engine.models, tools },
    }),
  };
}

/**
 * Starts the work now and, inside a request, hands its promise to Next's `after()` so a
 * serverless host keeps the instance alive until it settles. Never tied to the request's abort
 * signal: a closed tab does not stop a run.
 */
function runAfterResponse(work: () => Promise<void>): void {
  const task = work().catch((err) => console.error('[runtime] background work failed:', errorSummary(err)));
  try {
    after(task);
  } catch {
    // Outside a request (a script, the sweep): the promise runs on its own.
  }
}
