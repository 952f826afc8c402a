import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { DeltaCoalescer } from './delta-coalescer';
import type { BusEvent, EventSink } from './events';

/** A sink that records what would be stored and what would go out live (the coalescer's only collaborator). */
function recordingSink() {
  const live: Record<string, unknown>[] = [];
  const stored: Record<string, unknown>[] = [];
  const sink: EventSink = {
    async persist(conversationId, runId, type, data) {
      stored.push(data as Record<string, unknown>);
      return { conversationId, runId, type, seq: stored.length, data } as BusEvent;
    },
    store: async () => [],
    storeWith: async () => null,
    live(_c, _r, _t, data) {
      live.push(data as Record<string, unknown>);
    },
  };
  return { sink, live, stored };
}

const target = { conversationId: 'c', runId: 'r', messageId: 'm' };
/** Moves the fake clock, running the coalescer's timers that fall due (and what they await). */
const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('DeltaCoalescer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends no live copy of text that is stored before the live tick: an instant answer costs one stored event', async () => {
    const { sink, live, stored } = recordingSink();
    const c = new DeltaCoalescer(sink, target, { liveDelayMs: 50 });
    for (const w of ['Hello', ' there', ', friend']) c.push(0, w);
    await c.flush();
    await elapse(80);
    expect(live).toEqual([]);
    expect(stored).toEqual([{ messageId: 'm', blockIndex: 0, offset: 0, text: 'Hello there, friend' }]);
    c.dispose();
  });

  it('gathers what arrives within one tick into one live delta, with the offset of its first character', async () => {
    const { sink, live, stored } = recordingSink();
    const c = new DeltaCoalescer(sink, target, { liveDelayMs: 5, maxDelayMs: 10_000 });
    c.push(0, 'one');
    c.push(0, ' two');
    await elapse(30);
    c.push(0, ' three');
    c.push(1, 'x', 'thinking');
    await elapse(30);
    expect(live).toEqual([
      { messageId: 'm', blockIndex: 0, offset: 0, text: 'one two' },
      { messageId: 'm', blockIndex: 0, offset: 7, text: ' three' },
      { messageId: 'm', blockIndex: 1, offset: 0, text: 'x', kind: 'thinking' },
    ]);
    await c.flush();
    expect(stored).toEqual([
      { messageId: 'm', blockIndex: 0, offset: 0, text: 'one two three' },
      { messageId: 'm', blockIndex: 1, offset: 0, text: 'x', kind: 'thinking' },
    ]);
    c.dispose();
  });
});
