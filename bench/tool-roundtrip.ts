import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { startFixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import type { BenchDb } from './databases';
import { userWithServer } from './engine-setup';
import { bareMcpClient } from './peers';
import { below, summaryRow, type BenchReport } from './report';
import { interleave, pairedDifferences, summarize, type Variant } from './stats';

/**
 * Issue 12, figure 3: one tool round trip on a loopback server — the bare SDK's `callTool` on a
 * connected client, beside the same call through the gateway (a connection of its own per call)
 * and through the app's tool host (the gateway plus the catalog check of the call).
 */

const SECTION = 'tool round trip';
const ROUNDS = 300;
const TARGET_MS = 2;
const ARGS = { message: 'bench' };

interface CallSql {
  statements: number;
  sqlMs: number;
}

export async function toolRoundTripFigures(report: BenchReport, db: BenchDb): Promise<void> {
  const fixture = await startFixtureServer({ listCache: { ttlMs: 60_000 } });
  const bare = await bareMcpClient(fixture.url);
  try {
    const user = await userWithServer(db.handle, fixture.url);
    const server = (await user.tools.serversFor(user.userId)).find((s) => s.id === user.serverId)!;
    const gateway = createMcpGateway({ fetch: loopbackFetch });
    const callOpts = () => ({
      caller: { userId: user.userId, conversationId: 'bench' },
      signal: new AbortController().signal,
      timeoutMs: 5000,
    });
    const expectResult = (kind: string) => {
      if (kind !== 'result') throw new Error(`a bench tool call ended ${kind}`);
    };
    const noSql: CallSql = { statements: 0, sqlMs: 0 };
    const viaGateway = (name: string, g: { callTool: typeof gateway.callTool }, s: McpServerConfig): Variant<CallSql> => ({
      name,
      async run() {
        db.statements.start();
        const outcome = await g.callTool(s, 'echo', ARGS, callOpts());
        const { statements, sqlMs } = db.statements.stop();
        expectResult(outcome.kind);
        return { statements: statements.length, sqlMs };
      },
    });
    const app = `app tool host callTool (${db.kind})`;
    const variants: Variant<CallSql>[] = [
      {
        name: 'bare SDK callTool',
        run: async () => (await bare.callTool({ name: 'echo', arguments: ARGS }), noSql),
      },
      {
        name: 'bare SDK, new client per call',
        async run() {
          const client = await bareMcpClient(fixture.url);
          await client.callTool({ name: 'echo', arguments: ARGS });
          await client.close();
          return noSql;
        },
      },
      viaGateway('gateway callTool', gateway, server),
      viaGateway(app, user.tools.gateway, server),
    ];
    const { ms, extra } = await interleave(variants, { rounds: ROUNDS, warmup: 20 });
    const base = ms.get('bare SDK callTool')!;
    for (const v of variants) report.add(summaryRow(SECTION, `${v.name}: ms per call`, summarize(ms.get(v.name)!), 'ms'));
    for (const v of variants.slice(1)) {
      const added = summarize(pairedDifferences(ms.get(v.name)!, base));
      const target = v.name.startsWith('app tool host') ? below(added.median, TARGET_MS, 'ms') : {};
      report.add(summaryRow(SECTION, `${v.name}: ms added over the bare callTool`, added, 'ms', target));
    }
    const appSql = extra.get(app)!;
    report.add(
      summaryRow(SECTION, `${app}: SQL statements per call`, summarize(appSql.map((c) => c.statements)), 'statements'),
      summaryRow(SECTION, `${app}: ms in SQL per call`, summarize(appSql.map((c) => c.sqlMs)), 'ms'),
    );
    const perCall = fixture.requests.length / (ROUNDS + 20);
    report.note(
      SECTION,
      `${ROUNDS} interleaved rounds. The fixture server received ${perCall.toFixed(1)} HTTP requests per round of the four variants ` +
        '(the bare call sends one; a new client first sends server/discover).',
    );
  } finally {
    await bare.close();
    await fixture.close();
  }
}
