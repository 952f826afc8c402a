import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';

import { createAccessToken } from '@/lib/account/access-tokens';
import { createEventBus } from '@/lib/agent/bus';
import { getAuditKeyring } from '@/lib/audit/key';
import type { McpEndpoint } from '@/lib/gateway/endpoint';
import { resolveProfile } from '@/lib/gateway/profile';
import { createGatewayEndpoint } from '@/lib/gateway/service';
import { connectWithToken, serveMcpRoutes, type McpEndpointServer } from '@/test/fixtures/mcp-endpoint';
import { startFixtureServer } from '@/test/fixtures/mcp-fixture-server';

import type { BenchDb } from './databases';
import { userWithServer } from './engine-setup';
import { bareMcpClient } from './peers';
import { atMost, summaryRow, type BenchReport } from './report';
import { sqlProfile, type SqlCost } from './sql-profile';
import { interleave, pairedDifferences, summarize, type Variant } from './stats';

/**
 * Issue 25: what `/mcp` adds to a client's `tools/call` of a trusted read-only tool on a loopback
 * server, against the same client calling that server directly. `/mcp` is the app's endpoint as
 * the runtime wires it (`createGatewayEndpoint`: bearer token, the token's profile, the decision
 * table, the app's tool host, the `client_call` audit entry), served on 127.0.0.1 through the
 * same Node ↔ fetch adapter as app/mcp/*.test.ts, one per database. Both clients are the official
 * SDK's, each connected once, as a long-lived MCP client is.
 */

const SECTION = 'gateway';
const ROUNDS = 300;
const WARMUP = 20;
const TARGET_MS = 10;
const TOOL = 'echo';
const ARGS = { message: 'bench' };

interface GatewayVariant extends Variant<SqlCost> {
  db: BenchDb;
}

/** A person with the fixture switched on, a token exposing its read tool, and `/mcp` served on loopback for that database. */
async function throughMcp(
  db: BenchDb,
  fixtureUrl: string,
): Promise<{ variant: GatewayVariant; served: McpEndpointServer; client: Client; endpoint: McpEndpoint }> {
  const user = await userWithServer(db.handle, fixtureUrl);
  const person = { id: user.userId, plan: 'enterprise' };
  const profile = await resolveProfile({ db: db.handle.db, host: user.tools }, person, [`fx__${TOOL}`]);
  const { token } = await createAccessToken(db.handle.db, person, { name: 'bench client', expiresIn: '7d', profile });
  // The bench user's tool host reaches loopback through the tests' fetch, where the app's goes through the URL guard; its
  // grants are not consulted here: /mcp decides with the token's profile as the grant (lib/gateway/call.ts).
  // A trusted read tool never waits for approval: the bus and the wait are wired but unused here.
  const endpoint = createGatewayEndpoint({
    db: db.handle.db,
    tools: user.tools,
    auditKeys: () => getAuditKeyring(),
    bus: createEventBus(db.handle),
    approvalWaitMs: 120_000,
    stateKey: randomBytes(32),
  });
  const serve = (req: Request) => endpoint.serve(req);
  const served = await serveMcpRoutes({
    mcp: { GET: serve, POST: serve, DELETE: serve },
    metadata: () => new Response(null, { status: 404 }),
  });
  const client = await connectWithToken(served.url, token);
  const variant: GatewayVariant = {
    name: `through /mcp (${db.kind})`,
    db,
    async run() {
      db.statements.start();
      const result = await client.callTool({ name: `fx__${TOOL}`, arguments: ARGS });
      const { statements, timeline, sqlMs } = db.statements.stop();
      if (result.isError) throw new Error(`a call through /mcp failed: ${JSON.stringify(result.content)}`);
      return { statements: statements.length, timeline, sqlMs };
    },
  };
  return { variant, served, client, endpoint };
}

export async function gatewayFigures(report: BenchReport, dbs: BenchDb[]): Promise<void> {
  const fixture = await startFixtureServer({ listCache: { ttlMs: 60_000 } });
  const direct = await bareMcpClient(fixture.url);
  const opened: { served: McpEndpointServer; client: Client; endpoint: McpEndpoint }[] = [];
  try {
    const gateways: GatewayVariant[] = [];
    for (const db of dbs) {
      const g = await throughMcp(db, fixture.url);
      opened.push(g);
      gateways.push(g.variant);
    }
    const none: SqlCost = { statements: 0, timeline: [], sqlMs: 0 };
    const directVariant: Variant<SqlCost> = {
      name: 'direct',
      async run() {
        const result = await direct.callTool({ name: TOOL, arguments: ARGS });
        if (result.isError) throw new Error('a direct bench call failed');
        return none;
      },
    };
    const { ms, extra } = await interleave<SqlCost>([directVariant, ...gateways], { rounds: ROUNDS, warmup: WARMUP });
    const base = ms.get(directVariant.name)!;
    report.add(summaryRow(SECTION, `direct to the server (${TOOL}): ms per call`, summarize(base), 'ms'));
    for (const v of gateways) {
      const t = ms.get(v.name)!;
      const added = summarize(pairedDifferences(t, base));
      const costs = extra.get(v.name)!;
      report.add(
        summaryRow(SECTION, `${v.name}: ms per call`, summarize(t), 'ms'),
        summaryRow(SECTION, `${v.name}: ms added over direct`, added, 'ms', atMost(added.median, TARGET_MS, 'ms')),
        summaryRow(SECTION, `${v.name}: SQL statements per call`, summarize(costs.map((c) => c.statements)), 'statements'),
        summaryRow(SECTION, `${v.name}: ms in SQL per call`, summarize(costs.map((c) => c.sqlMs)), 'ms'),
        summaryRow(SECTION, `${v.name}: ms outside SQL per call`, summarize(t.map((x, i) => x - costs[i]!.sqlMs)), 'ms'),
      );
      if (added.median > TARGET_MS) {
        report.note(SECTION, `${v.name} misses ${TARGET_MS} ms added; costliest statements per call: ${sqlProfile(costs, 8)}`);
      }
      if (process.env.BENCH_PRINT_STATEMENTS) {
        const list = costs
          .at(-1)!
          .timeline.map(
            (st, i) => `${String(i).padStart(2)} ${st.ms.toFixed(1).padStart(5)} ms  ${st.sql.replace(/\s+/g, ' ').trim().slice(0, 150)}`,
          );
        console.log(`\n${v.name}, one call:\n${list.join('\n')}`);
      }
    }
    report.note(
      SECTION,
      `${ROUNDS} interleaved rounds (after ${WARMUP} untimed), each variant once per round in a shuffled order; the added time is ` +
        'per round (paired). The fixture lets its catalog be kept a minute, as the turn section does.',
    );
  } finally {
    for (const g of opened) {
      await g.client.close();
      await g.served.close();
      await g.endpoint.close();
    }
    await direct.close();
    await fixture.close();
  }
}
