import type Anthropic from '@anthropic-ai/sdk';

import { startFixtureServer } from '@/test/fixtures/mcp-fixture-server';

import type { BenchDb } from './databases';
import { builtinEngine, expectCompleted, newConversation, remoteEngine, turn, WARM_UP_TEXT, type BenchEngine } from './engine-setup';
import type { BenchModel } from './model-script';
import { aiSdkVariant, bareMcpClient, floorVariant, minimalLoopVariant } from './peers';
import { atMost, summaryRow, type BenchReport } from './report';
import { sqlProfile, type SqlCost as TurnCost } from './sql-profile';
import { interleave, pairedDifferences, pairedRatios, summarize, type Variant } from './stats';

/**
 * Issue 12, figure 1: host overhead per turn. A tool turn (two model calls, one tool call, model
 * and tool answering at once) through the real engine and database, beside the peers, on the
 * same scripted model and the same loopback MCP server, interleaved round by round.
 */

const SECTION = 'turn';
/** Targets of the issue: engine ÷ peer, per database. */
const RATIO_TARGET: Record<BenchDb['kind'], number> = { postgres: 1.25, pglite: 1.5 };
const STATEMENT_TARGET = 20;
const TOOL_TURN_TEXT = 'Echo something, please.';
/**
 * The built-in tool's own query (notes__search reads the notes table): not what the host adds, so
 * not counted against the target, as in lib/agent/statement-count.test.ts. Its time stays in the SQL figures.
 */
const TOOL_OWN_STATEMENT = /from "notes"/;

interface EngineVariant extends Variant<TurnCost> {
  db: BenchDb;
  path: 'remote' | 'builtin';
}

/** One engine variant: each round a fresh conversation with one untimed warm-up turn, then the timed tool turn. */
function engineVariant(db: BenchDb, path: EngineVariant['path'], engine: BenchEngine, userId: string): EngineVariant {
  let conversationId = '';
  return {
    name: `engine ${path === 'remote' ? 'fx__echo' : 'notes__search'} (${db.kind})`,
    db,
    path,
    async prepare() {
      conversationId = await newConversation(db.handle, userId);
      await expectCompleted(db.handle, await turn(engine, userId, conversationId, WARM_UP_TEXT));
    },
    async run() {
      db.statements.start();
      const runId = await turn(engine, userId, conversationId, TOOL_TURN_TEXT);
      const { statements, timeline, sqlMs } = db.statements.stop();
      await expectCompleted(db.handle, runId);
      return { statements: statements.filter((s) => !TOOL_OWN_STATEMENT.test(s.sql)).length, timeline, sqlMs };
    },
  };
}

export async function engineTurnFigures(
  report: BenchReport,
  dbs: BenchDb[],
  model: BenchModel,
  anthropic: Anthropic,
  opts: { rounds: number; warmup: number; onRound?: (done: number) => void },
): Promise<void> {
  // The catalog says it may be kept a minute: a warm turn lists nothing (figure 5 measures that).
  const fixture = await startFixtureServer({ listCache: { ttlMs: 60_000 } });
  const mcp = await bareMcpClient(fixture.url);
  const aiSdk = await aiSdkVariant(model.url, fixture.url);
  try {
    const engines: EngineVariant[] = [];
    for (const db of dbs) {
      const remote = await remoteEngine(db.handle, model, fixture.url);
      engines.push(engineVariant(db, 'remote', remote.engine, remote.user.userId));
      const builtin = await builtinEngine(db.handle, model);
      engines.push(engineVariant(db, 'builtin', builtin.engine, builtin.userId));
    }
    const floor = floorVariant(anthropic);
    const minimal = minimalLoopVariant(anthropic, mcp);
    const none: TurnCost = { statements: 0, timeline: [], sqlMs: 0 };
    const peers: Variant<TurnCost>[] = [floor, minimal, aiSdk].map((v) => ({ ...v, run: async () => (await v.run(), none) }));
    const errorsBefore = model.errorResults();
    const { ms, extra } = await interleave<TurnCost>([...peers, ...engines], opts);
    if (model.errorResults() > errorsBefore) throw new Error(`${model.errorResults() - errorsBefore} tool calls of the turn bench failed`);

    const of = (name: string) => ms.get(name)!;
    for (const v of peers) report.add(summaryRow(SECTION, `${v.name}: ms per turn`, summarize(of(v.name)), 'ms'));
    for (const v of engines) {
      const t = of(v.name);
      report.add(summaryRow(SECTION, `${v.name}: ms per turn`, summarize(t), 'ms'));
      report.add(summaryRow(SECTION, `${v.name}: ms over the floor`, summarize(pairedDifferences(t, of(floor.name))), 'ms'));
      report.add(summaryRow(SECTION, `${v.name}: ms over the minimal loop`, summarize(pairedDifferences(t, of(minimal.name))), 'ms'));
      for (const peer of [minimal.name, aiSdk.name]) {
        const ratio = summarize(pairedRatios(t, of(peer)));
        const target = v.path === 'remote' ? atMost(ratio.median, RATIO_TARGET[v.db.kind], '×') : {};
        report.add(summaryRow(SECTION, `${v.name} ÷ ${peer}`, ratio, '×', target));
      }
      const costs = extra.get(v.name)!;
      const statements = summarize(costs.map((c) => c.statements));
      const statementTarget = atMost(statements.median, STATEMENT_TARGET, 'statements');
      report.add(summaryRow(SECTION, `${v.name}: SQL statements per turn`, statements, 'statements', statementTarget));
      report.add(summaryRow(SECTION, `${v.name}: ms in SQL per turn`, summarize(costs.map((c) => c.sqlMs)), 'ms'));
      report.add(summaryRow(SECTION, `${v.name}: ms outside SQL per turn`, summarize(t.map((ms, i) => ms - costs[i]!.sqlMs)), 'ms'));
      report.note(SECTION, `${v.name}, costliest statements per turn (SQL time until the next statement): ${sqlProfile(costs, 8)}`);
      // BENCH_PRINT_STATEMENTS=1 lists the statements of the last round, one line each: where a turn's statements go.
      if (process.env.BENCH_PRINT_STATEMENTS) {
        const list = costs
          .at(-1)!
          .timeline.map(
            (st, i) => `${String(i).padStart(2)} ${st.ms.toFixed(1).padStart(5)} ms  ${st.sql.replace(/\s+/g, ' ').trim().slice(0, 150)}`,
          );
        console.log(`\n${v.name}, one turn:\n${list.join('\n')}`);
      }
    }
    report.note(
      SECTION,
      `${opts.rounds} interleaved rounds (after ${opts.warmup} untimed), every variant once per round in a shuffled order; ratios and ` +
        'differences are per round (paired). Each engine turn is the second turn of a fresh conversation (the first is an untimed ' +
        'warm-up), so the catalog is warm and the history holds one turn.',
    );
  } finally {
    await aiSdk.close();
    await mcp.close();
    await fixture.close();
  }
}
