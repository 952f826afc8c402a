import { createConversation } from '@/db/queries/conversations';
import { getRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { trackedSchedule } from '@/lib/agent/deps';
import { startRun } from '@/lib/agent/engine';
import { offerForStep } from '@/lib/agent/step-offer';
import { estimateToolTokens } from '@/lib/agent/token-estimate';
import { DEFAULT_TOOL_SEARCH } from '@/lib/agent/tool-budget';
import type { ToolHost } from '@/lib/agent/tool-host';
import { staticGrants } from '@/lib/consent/grant-source';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { createModelClient } from '@/lib/model/client';
import { buildEngineDeps } from '@/lib/server/engine-deps';
import { DOMAINS, startManyServers } from '@/test/fixtures/many-servers';
import { loopbackFetch } from '@/test/loopback-fetch';

import type { BenchDb } from './databases';
import { summaryRow, type BenchReport } from './report';
import { summarize } from './stats';

/**
 * Tool search: what the first request of a turn carries with 300 enabled tools over 12 MCP
 * servers (real servers on 127.0.0.1, one process), with and without the budget, and how long
 * a turn takes that searches for a tool and calls it (the demo model, which knows how to search).
 */

const SECTION = 'tool search';
const NO_BUDGET = { maxTools: Number.MAX_SAFE_INTEGER, maxTokens: Number.MAX_SAFE_INTEGER, recentTools: 0 };
const TURNS = 10;

export async function toolSearchFigures(report: BenchReport, db: BenchDb): Promise<void> {
  const { handle } = db;
  const servers = await startManyServers();
  try {
    const configs: McpServerConfig[] = servers.namespaces.map((ns) => ({
      id: `bench-${ns}`,
      namespace: ns,
      displayName: DOMAINS[ns]!.title,
      url: servers.urlOf(ns),
      trust: 'trusted',
      trustContent: true,
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
      const kb = Buffer.byteLength(JSON.stringify(offer.tools)) / 1024;
      report.add(
        { section: SECTION, figure: `first request, 300 tools, ${label}: tools offered`, value: offer.tools.length, unit: 'tools' },
        { section: SECTION, figure: `first request, 300 tools, ${label}: definitions`, value: kb, unit: 'KB' },
        { section: SECTION, figure: `first request, 300 tools, ${label}: ~tokens`, value: estimateToolTokens(offer.tools), unit: 'tokens' },
      );
    }

    const work = trackedSchedule((err) => console.error('[bench] background work failed', err));
    const deps = buildEngineDeps(handle, {
      role: 'bench',
      schedule: work.schedule,
      tools,
      toolSearch: DEFAULT_TOOL_SEARCH,
      model: { client: createModelClient({ DEMO_MODEL_DELAY_MS: '0' }), model: 'demo' },
    });
    const out: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const c = await createConversation(handle.db, { userId: user.id, model: 'demo' });
      const t0 = performance.now();
      const { run } = await startRun(deps, {
        conversationId: c.id,
        userId: user.id,
        sessionId: null,
        text: 'call wiki__create_template {"title": "Runbook"}',
      });
      await work.idle();
      const done = await getRun(handle.db, run.id);
      if (done?.status !== 'completed') throw new Error(`search turn ${i} ended ${done?.status}: ${JSON.stringify(done?.error)}`);
      out.push(performance.now() - t0);
    }
    report.add(summaryRow(SECTION, `turn: search 300 tools, then call one (demo model, ${db.kind})`, summarize(out), 'ms'));
  } finally {
    await servers.close();
  }
}
