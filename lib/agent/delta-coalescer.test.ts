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

  it('stores a step of 300 words streamed over 1.5 s as two events, and sends the rest live (issue 28: fifteen before)', async () => {
    const { sink, live, stored } = recordingSink();
    const c = new DeltaCoalescer(sink, target);
    const words = Array.from({ length: 300 }, (_, i) => `w${i} `);
    for (const w of words) {
      c.push(0, w);
      await elapse(5);
    }
    await c.flush();
    // One event at the first second of streaming, one at the end: together the whole text, in order.
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({ offset: 0 });
    expect(stored.map((d) => d.text).join('')).toBe(words.join(''));
    // Live text went out meanwhile, gathered per tick, each piece at its place in the block.
    expect(live.length).toBeGreaterThan(100);
    for (const d of live) expect(words.join('').slice(d.offset as number, (d.offset as number) + (d.text as string).length)).toBe(d.text);
    c.dispose();
  });

  it('keeps a failed background store for the step to find, never as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { sink } = recordingSink();
      sink.persist = async () => {
        throw new Error('database away');
      };
      const c = new DeltaCoalescer(sink, target, { maxBytes: 4 });
      c.push(0, 'more than four');
      c.push(0, 'and again');
      await elapse(10);
      // Let the process see any rejection nobody handled.
      await vi.waitFor(() => new Promise((resolve) => setImmediate(resolve)));
      expect(unhandled).toEqual([]);
      await expect(c.flush()).rejects.toThrow('database away');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
