// Tool search figures for `npm run bench`: what the first request of a turn carries with 300 enabled
// tools over 12 MCP servers (real servers on 127.0.0.1, one process), with and without the budget,
// and how long a turn takes that searches for a tool and calls it (demo model).
import type { DbHandle } from '../db/connection';
import { createConversation } from '../db/queries/conversations';
import { getRun } from '../db/queries/runs';
import { createUser } from '../db/queries/users';
import type { EngineDeps } from '../lib/agent/deps';
import { startRun } from '../lib/agent/engine';
import { offerForStep } from '../lib/agent/step-offer';
import { estimateToolTokens } from '../lib/agent/token-estimate';
import { DEFAULT_TOOL_SEARCH } from '../lib/agent/tool-budget';
import type { ToolHost } from '../lib/agent/tool-host';
import { staticGrants } from '../lib/consent/grant-source';
import { createMcpGateway } from '../lib/mcp/gateway';
import type { McpServerConfig } from '../lib/mcp/types';
import { DOMAINS, startManyServers } from '../test/fixtures/many-servers';
import { loopbackFetch } from '../test/loopback-fetch';

const NO_BUDGET = { maxTools: Number.MAX_SAFE_INTEGER, maxTokens: Number.MAX_SAFE_INTEGER, recentTools: 0 };

export async function toolSearchFigures(
  deps: EngineDeps & { drain(): Promise<void> },
  handle: DbHandle,
  turns: number,
  stats: (ms: number[]) => string,
): Promise<void> {
  const servers = await startManyServers();
  try {
    const configs: McpServerConfig[] = servers.namespaces.map((ns) => ({
      id: `bench-${ns}`,
      namespace: ns,
      displayName: DOMAINS[ns]!.title,
      url: servers.urlOf(ns),
      trust: 'trusted',
      timeoutMs: 5000,
    }));
    const tools: ToolHost = {
      gateway: createMcpGateway({ fetch: loopbackFetch }),
      serversFor: async () => configs,
      grants: staticGrants(Object.fromEntries(configs.map((c) => [`${c.id}/*`, { autoApprove: true }]))),
    };
    const user = (await createUser(handle.db, {
      email: `bench-search-${Date.now()}@example.test`,
      passwordHash: 'x',
      plan: 'enterprise',
    }))!;
    const conversation = await createConversation(handle.db, { userId: user.id, model: 'demo' });
    const at = { userId: user.id, conversationId: conversation.id, sessionId: null };
    for (const [label, toolSearch] of [
      ['every tool', NO_BUDGET],
      ['tool search', DEFAULT_TOOL_SEARCH],
    ] as const) {
      const offer = await offerForStep(handle.db, tools, at, { toolSearch });
      const bytes = Buffer.byteLength(JSON.stringify(offer.tools));
      const n = offer.tools.length;
      console.log(
        `first request, 300 tools, ${label.padEnd(11)}: ${String(n).padStart(3)} tool${n === 1 ? '' : 's'}, ` +
          `${(bytes / 1024).toFixed(1)} KB of definitions, ~${estimateToolTokens(offer.tools).toLocaleString('en')} tokens`,
      );
    }

    const withSearch = { ...deps, tools, toolSearch: DEFAULT_TOOL_SEARCH };
    const out: number[] = [];
    for (let i = 0; i < turns; i++) {
      const c = await createConversation(handle.db, { userId: user.id, model: 'demo' });
      const t0 = performance.now();
      const { run } = await startRun(withSearch, {
        conversationId: c.id,
        userId: user.id,
        sessionId: null,
        text: 'call wiki__create_template {"title": "Runbook"}',
      });
      await deps.drain();
      const done = await getRun(handle.db, run.id);
      if (done?.status !== 'completed') throw new Error(`search turn ${i} ended ${done?.status}: ${JSON.stringify(done?.error)}`);
      out.push(performance.now() - t0);
    }
    console.log(`turn: search 300 tools, then call one:   ${stats(out)}`);
  } finally {
    await servers.close();
  }
}
