import { describe, expect, it } from 'vitest';

import type { ToolCallView } from '@/lib/agent/tool-call-view';
import { sampleToolCallView } from '@/test/sample-tool-call';

import { formatDuration, turnTimeline } from './timeline';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (ms: number | null) => (ms === null ? null : new Date(T0 + ms).toISOString());

function call(
  id: string,
  step: number,
  times: { proposed: number; started: number | null; ended: number | null },
  more: Partial<ToolCallView> = {},
) {
  return sampleToolCallView({
    id,
    status: times.ended !== null ? 'succeeded' : times.started !== null ? 'executing' : 'pending_approval',
    server: 'notes',
    tool: id,
    modelName: `notes__${id}`,
    hints: { annotated: true, readOnly: true, destructive: false, openWorld: false },
    step,
    proposedAt: at(times.proposed),
    startedAt: at(times.started),
    endedAt: at(times.ended),
    ...more,
  });
}

describe('turnTimeline', () => {
  it('is nothing for a turn with fewer than two calls', () => {
    expect(turnTimeline([], T0)).toBeNull();
    expect(turnTimeline([call('a', 0, { proposed: 0, started: 5, ended: 50 })], T0)).toBeNull();
  });

  it('groups calls by step and tells overlapping calls of a step from sequential ones', () => {
    const t = turnTimeline(
      [
        call('search', 0, { proposed: 0, started: 10, ended: 300 }),
        call('list', 0, { proposed: 0, started: 20, ended: 200 }),
        call('read', 1, { proposed: 400, started: 410, ended: 500 }),
        call('write', 1, { proposed: 400, started: 510, ended: 1000 }),
      ],
      T0 + 5000,
    )!;
    expect(t.calls).toBe(4);
    expect(t.spanMs).toBe(1000);
    expect(t.steps.map((s) => [s.step, s.parallel, s.bars.map((b) => b.id)])).toEqual([
      [0, true, ['search', 'list']],
      [1, false, ['read', 'write']],
    ]);
    const write = t.steps[1].bars[1];
    expect([write.proposed, write.started, write.ended]).toEqual([0.4, 0.51, 1]);
    expect(write.ranMs).toBe(490);
  });

  it('shows how long a call waited for the person, and only when it did', () => {
    const t = turnTimeline(
      [
        call('auto', 0, { proposed: 0, started: 3, ended: 40 }),
        call(
          'asked',
          0,
          { proposed: 0, started: 4200, ended: 4300 },
          { waitedFor: 'approval', decision: { kind: 'allow_once', reason: null, edited: false } },
        ),
      ],
      T0,
    )!;
    const [auto, asked] = t.steps[0].bars;
    expect(auto.waitedMs).toBeNull();
    expect(asked).toMatchObject({ waitedMs: 4200, waitedFor: 'approval', ranMs: 100 });
    expect(t.steps[0].parallel).toBe(false);
  });

  it('runs a call still going up to now, and leaves one never started without a bar', () => {
    const t = turnTimeline(
      [call('slow', 0, { proposed: 0, started: 100, ended: null }), call('waiting', 0, { proposed: 50, started: null, ended: null })],
      T0 + 2100,
    )!;
    const [slow, waiting] = t.steps[0].bars;
    expect(t.spanMs).toBe(2100);
    expect(slow).toMatchObject({ ended: 1, ranMs: 2000 });
    expect(waiting).toMatchObject({ started: null, ended: null, ranMs: null });
  });

  it('marks failed calls and leaves out calls from before the timeline existed', () => {
    const t = turnTimeline(
      [
        call('ok', 0, { proposed: 0, started: 1, ended: 10 }),
        call('boom', 0, { proposed: 0, started: 1, ended: 20 }, { status: 'errored' }),
        call('old', 0, { proposed: 0, started: 1, ended: 20 }, { proposedAt: null }),
      ],
      T0,
    )!;
    expect(t.steps[0].bars.map((b) => [b.id, b.failed])).toEqual([
      ['ok', false],
      ['boom', true],
    ]);
  });
});

describe('formatDuration', () => {
  it('reads at a glance', () => {
    expect([formatDuration(0), formatDuration(850), formatDuration(4210), formatDuration(125_000)]).toEqual([
      '0 ms',
      '850 ms',
      '4.2 s',
      '2 min 5 s',
    ]);
  });
});
