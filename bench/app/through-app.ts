import { randomUUID } from 'node:crypto';

import { createConversation, turn, type TurnTiming } from './client';
import type { ModelCall } from './model';
import { measured, type BenchRow } from './rows';
import { startApp, type BenchDatabase } from './server';

/**
 * The turn of the engine bench, through the app: `next start` over HTTP with SSE, one turn at a
 * time, each in a new conversation (created beforehand, untimed, with a title so no title call
 * is made). A plain turn is one model call; a tool turn is two model calls around one
 * `notes__search` (built-in, trusted, read-only: it runs without asking). The bench model
 * answers at once, so what is timed is the app: the request, the engine, the database, the
 * stream. "Host" is the turn minus the model's own time.
 */

export interface ThroughAppOptions {
  database: BenchDatabase;
  port: number;
  turns: number;
  warmup?: number;
  /** More arguments for `next start` (e.g. `--experimental-cpu-prof`, to see where its time goes). */
  nextArgs?: string[];
}

const SECTION = 'Through the app';

function modelMs(calls: ModelCall[]): number {
  return calls.reduce((sum, c) => sum + (c.endedAt - c.receivedAt), 0);
}

export async function throughApp(opts: ThroughAppOptions): Promise<BenchRow[]> {
  const app = await startApp({
    database: opts.database,
    port: opts.port,
    model: { answerWords: 20, leadWords: 0, wordDelayMs: 0 },
    users: 1,
    nextArgs: opts.nextArgs,
    // One user sends every turn back to back: past a person's messages per minute and turns per hour.
    limits: { messagesPerMinute: 1_000_000, runsPerHour: 1_000_000, modelTokensPerDay: 1e12 },
  });
  try {
    const user = app.users[0]!;
    const model = app.model!;
    async function timed(kind: 'plain' | 'tool'): Promise<{ timing: TurnTiming; calls: ModelCall[] }> {
      const conversationId = await createConversation(app.origin, user, `Bench ${kind}`);
      const turnId = randomUUID().slice(0, 8);
      const text =
        kind === 'tool'
          ? `Look it up in my notes, please. [bench:${turnId}:tool]`
          : `Hello there, how are you today? [bench:${turnId}:plain]`;
      const timing = await turn(app.origin, user, conversationId, text);
      const calls = model.callsOf(turnId);
      model.forget(turnId);
      const expected = kind === 'tool' ? 2 : 1;
      if (calls.length !== expected) throw new Error(`a ${kind} turn made ${calls.length} model calls, expected ${expected}`);
      return { timing, calls };
    }
    // The first requests load route modules and warm the JIT; they are not counted.
    for (let i = 0; i < (opts.warmup ?? 5); i++) {
      await timed('plain');
      await timed('tool');
    }
    const plain: { timing: TurnTiming; calls: ModelCall[] }[] = [];
    const tool: { timing: TurnTiming; calls: ModelCall[] }[] = [];
    for (let i = 0; i < opts.turns; i++) {
      plain.push(await timed('plain'));
      tool.push(await timed('tool'));
    }
    if (model.problems.length) throw new Error(`bench model: ${model.problems.slice(0, 3).join('; ')}`);
    const total = (t: TurnTiming) => t.endedAt - t.startedAt;
    const host = (r: { timing: TurnTiming; calls: ModelCall[] }) => total(r.timing) - modelMs(r.calls);
    const firstDelta = plain.map((r) => r.timing.firstDeltaAt! - r.calls[0]!.firstDeltaAt!);
    const db = opts.database;
    return [
      measured(
        SECTION,
        `${db}: plain turn`,
        plain.map((r) => total(r.timing)),
        'ms',
        40,
      ),
      measured(
        SECTION,
        `${db}: turn with one tool call`,
        tool.map((r) => total(r.timing)),
        'ms',
        60,
      ),
      measured(SECTION, `${db}: first delta after the model's`, firstDelta, 'ms', 15),
      measured(
        SECTION,
        `${db}: POST …/messages to its 202 (plain turn)`,
        plain.map((r) => r.timing.acceptedAt - r.timing.startedAt),
        'ms',
      ),
      measured(
        SECTION,
        `${db}: the model's own time in a tool turn`,
        tool.map((r) => modelMs(r.calls)),
        'ms',
      ),
      measured(SECTION, `${db}: host time of a tool turn`, tool.map(host), 'ms'),
    ];
  } finally {
    await app.stop();
  }
}
