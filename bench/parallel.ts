import { startFixtureServer } from '@/test/fixtures/mcp-fixture-server';
import type { RecordedRequest, ScriptedReply } from '@/test/fixtures/scripted-model';

import type { BenchDb } from './databases';
import { expectCompleted, newConversation, remoteEngine, turn, WARM_UP_TEXT } from './engine-setup';
import { defaultReply, startBenchModel } from './model-script';
import { bareMcpClient } from './peers';
import { atMost, summaryRow, type BenchReport } from './report';
import { summarize } from './stats';

/**
 * Issue 12, figure 4: three 300 ms calls proposed in one step run side by side. The tool phase's
 * wall time is from the first `tool_call.started` to the last `tool_call.completed` seen on the
 * bus; beside it, the same three calls through the bare SDK with `Promise.all`.
 */

const SECTION = 'parallel calls';
const CALL_MS = 300;
const TURNS = 8;
const SLOW = { ms: CALL_MS, progress: false };

function threeSlowCalls(req: RecordedRequest): ScriptedReply {
  const offered = (req.body.tools ?? []).some((t) => t.name === 'fx__slow');
  const last = req.body.messages.at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
  if (!offered || answered) return defaultReply(req);
  const id = () => `toolu_slow_${Math.random().toString(36).slice(2)}`;
  return { blocks: [1, 2, 3].map(() => ({ type: 'tool_use' as const, id: id(), name: 'fx__slow', input: SLOW })) };
}

export async function parallelFigures(report: BenchReport, dbs: BenchDb[]): Promise<void> {
  const fixture = await startFixtureServer({ listCache: { ttlMs: 60_000 } });
  const model = await startBenchModel(threeSlowCalls);
  const bare = await bareMcpClient(fixture.url);
  try {
    const bareWall: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const t0 = performance.now();
      await Promise.all([1, 2, 3].map(() => bare.callTool({ name: 'slow', arguments: SLOW })));
      bareWall.push(performance.now() - t0);
    }
    report.add(summaryRow(SECTION, `bare SDK, Promise.all of three ${CALL_MS} ms calls: wall`, summarize(bareWall), 'ms'));

    for (const db of dbs) {
      const { engine, user } = await remoteEngine(db.handle, model, fixture.url);
      const phase: number[] = [];
      const whole: number[] = [];
      for (let i = 0; i < TURNS + 1; i++) {
        const conversationId = await newConversation(db.handle, user.userId);
        await expectCompleted(db.handle, await turn(engine, user.userId, conversationId, WARM_UP_TEXT));
        let started = Number.NaN;
        let completed = 0;
        let ended = Number.NaN;
        const off = await engine.bus.subscribe(conversationId, (e) => {
          if (e.type === 'tool_call.started' && Number.isNaN(started)) started = performance.now();
          if (e.type === 'tool_call.completed' && ++completed === 3) ended = performance.now();
        });
        const t0 = performance.now();
        await expectCompleted(db.handle, await turn(engine, user.userId, conversationId, 'Three slow calls, please.'));
        const t1 = performance.now();
        off();
        if (completed !== 3) throw new Error(`the parallel turn completed ${completed} calls, not 3`);
        if (i === 0) continue; // warm-up
        phase.push(ended - started);
        whole.push(t1 - t0);
      }
      const s = summarize(phase);
      report.add(
        summaryRow(
          SECTION,
          `engine (${db.kind}): tool phase wall, three ${CALL_MS} ms calls`,
          s,
          'ms',
          atMost(s.median, CALL_MS * 1.1, 'ms'),
        ),
        summaryRow(SECTION, `engine (${db.kind}): whole turn with them`, summarize(whole), 'ms'),
      );
    }
    report.note(
      SECTION,
      `${TURNS} turns per database after one untimed; the tool phase: first tool_call.started to the third tool_call.completed on the bus.`,
    );
  } finally {
    await bare.close();
    await model.close();
    await fixture.close();
  }
}
