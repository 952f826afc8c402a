import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';

import type { BenchDb } from './databases';
import { expectCompleted, newConversation, remoteEngine, turn, WARM_UP_TEXT } from './engine-setup';
import type { BenchModel } from './model-script';
import { atMost, summaryRow, type BenchReport } from './report';
import { summarize } from './stats';

/**
 * Issue 12, figure 5: `tools/list` requests per tool turn with a warm catalog (the server lets
 * its list be kept a minute) and with a server that says `ttlMs: 0`; and every MCP request a
 * tool turn makes, by JSON-RPC method.
 */

const SECTION = 'catalog';
const TURNS = 10;

async function perTurn(db: BenchDb, model: BenchModel, fixture: FixtureServer) {
  const { engine, user } = await remoteEngine(db.handle, model, fixture.url);
  const lists: number[] = [];
  const requests: number[] = [];
  const methods = new Map<string, number>();
  for (let i = 0; i < TURNS; i++) {
    const conversationId = await newConversation(db.handle, user.userId);
    await expectCompleted(db.handle, await turn(engine, user.userId, conversationId, WARM_UP_TEXT));
    const from = fixture.requests.length;
    await expectCompleted(db.handle, await turn(engine, user.userId, conversationId, 'Echo something, please.'));
    const seen = fixture.requests.slice(from);
    lists.push(seen.filter((r) => r.rpc === 'tools/list').length);
    requests.push(seen.length);
    for (const r of seen) methods.set(r.rpc ?? r.method, (methods.get(r.rpc ?? r.method) ?? 0) + 1);
  }
  const byMethod = [...methods].map(([m, n]) => `${m} ×${(n / TURNS).toFixed(1)}`).join(', ');
  return { lists: summarize(lists), requests: summarize(requests), byMethod };
}

export async function catalogFigures(report: BenchReport, db: BenchDb, model: BenchModel): Promise<void> {
  const warmServer = await startFixtureServer({ listCache: { ttlMs: 60_000 } });
  const uncachedServer = await startFixtureServer({ listCache: { ttlMs: 0 } });
  try {
    const warm = await perTurn(db, model, warmServer);
    const uncached = await perTurn(db, model, uncachedServer);
    report.add(
      summaryRow(SECTION, 'tools/list per tool turn, warm catalog', warm.lists, 'requests', atMost(warm.lists.median, 0, 'requests')),
      summaryRow(SECTION, 'tools/list per tool turn, server says ttlMs: 0', uncached.lists, 'requests'),
      summaryRow(SECTION, 'MCP HTTP requests per tool turn, warm catalog', warm.requests, 'requests'),
    );
    report.note(SECTION, `per tool turn (${TURNS} turns, ${db.kind}), warm: ${warm.byMethod}; ttlMs 0: ${uncached.byMethod}.`);
  } finally {
    await warmServer.close();
    await uncachedServer.close();
  }
}
