import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { StreamClosed } from '@/lib/agent/events';

import type { ChatEvent } from './chat-state';
import { followConversation, type EventSourceLike } from './use-conversation-events';

class FakeSource implements EventSourceLike {
  readyState = 0;
  onerror: ((ev: Event) => void) | null = null;
  closed = false;
  private listeners = new Map<string, ((ev: MessageEvent<string>) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (ev: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
  emit(type: string, data: object = {}) {
    if (this.closed) return;
    if (this.readyState === 0) this.readyState = 1;
    for (const l of this.listeners.get(type) ?? []) l({ data: JSON.stringify(data) } as MessageEvent<string>);
  }
  /** The stream ended: 0 when EventSource would retry (the server closed it), 2 when it gave up (an error status). */
  end(state: 0 | 2) {
    this.readyState = state;
    this.onerror?.(new Event('error'));
  }
}

const PING = 1000;

describe('following a conversation', () => {
  let sources: FakeSource[];
  let events: ChatEvent[];
  let closed: StreamClosed[];
  let lost: number;
  let stop: () => void;

  beforeEach(() => {
    vi.useFakeTimers();
    sources = [];
    events = [];
    closed = [];
    lost = 0;
    stop = followConversation({
      conversationId: 'c1',
      afterSeq: 7,
      pingMs: PING,
      handlers: () => ({ onEvent: (e) => events.push(e), onClosed: (c) => closed.push(c), onLost: () => lost++ }),
      open: (url) => {
        const s = new FakeSource(url);
        sources.push(s);
        return s;
      },
    });
  });
  afterEach(() => {
    stop();
    vi.useRealTimers();
  });
  const current = () => sources[sources.length - 1]!;

  it('gives up on a stream that says nothing for two ping intervals (a request stuck before its first byte)', () => {
    expect(current().url).toBe('/api/conversations/c1/events?after=7');
    vi.advanceTimersByTime(2 * PING - 100);
    expect(lost).toBe(0);
    vi.advanceTimersByTime(400);
    expect(lost).toBe(1);
    expect(current().closed).toBe(true);
    vi.advanceTimersByTime(10 * PING);
    expect(lost).toBe(1);
  });

  it('stays with a quiet stream that pings', () => {
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(PING);
      current().emit('ping');
    }
    expect(lost).toBe(0);
    expect(sources).toHaveLength(1);
  });

  it('resynchronizes when a stream ends without an end or a pause', () => {
    current().emit('run.started', { seq: 8, runId: 'r' });
    current().emit('message.delta', { seq: 9, runId: 'r', text: 'hi', offset: 0, messageId: 'm', blockIndex: 0 });
    current().end(0);
    expect(lost).toBe(1);
    expect(sources).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(['run.started', 'message.delta']);
  });

  it('resynchronizes when the server refuses the stream (an error status, or 204)', () => {
    current().end(2);
    expect(lost).toBe(1);
  });

  it('a pause ends that stream: a new one waits from the last seq; a second end without a word is a loss', () => {
    current().emit('tool_call.approval_requested', { seq: 8, runId: 'r', toolCall: { toolUseId: 't' } });
    current().emit('run.awaiting_approval', { seq: 9, runId: 'r', status: 'awaiting_approval' });
    current().end(0);
    expect(lost).toBe(0);
    expect(sources).toHaveLength(2);
    expect(sources[0]!.closed).toBe(true);
    expect(current().url).toBe('/api/conversations/c1/events?after=9');
    current().end(0);
    expect(lost).toBe(1);
  });

  it('waiting for a sign-in is a pause too: the stream may end, a new one follows from its seq', () => {
    current().emit('tool_call.sign_in_requested', { seq: 8, runId: 'r', toolCall: { toolUseId: 't' } });
    current().emit('run.awaiting_sign_in', { seq: 9, runId: 'r', status: 'awaiting_sign_in', toolCallIds: ['c'], servers: [] });
    current().end(0);
    expect(lost).toBe(0);
    expect(current().url).toBe('/api/conversations/c1/events?after=9');
    expect(events.map((e) => e.type)).toEqual(['tool_call.sign_in_requested', 'run.awaiting_sign_in']);
  });

  it('an end is final', () => {
    current().emit('run.completed', { seq: 8, runId: 'r', status: 'completed' });
    expect(current().closed).toBe(true);
    current().end(0);
    vi.advanceTimersByTime(10 * PING);
    expect(lost).toBe(0);
    expect(sources).toHaveLength(1);
  });

  it('stream.closed is final: no reconnect, no resync, the reason is handed on', () => {
    const why = { reason: 'too_many_streams', message: 'This conversation was opened in another tab or window.' };
    current().emit('stream.closed', why);
    expect(closed).toEqual([why]);
    expect(current().closed).toBe(true);
    current().end(0);
    vi.advanceTimersByTime(10 * PING);
    expect(lost).toBe(0);
    expect(sources).toHaveLength(1);
  });

  it('stopping calls nothing', () => {
    stop();
    vi.advanceTimersByTime(10 * PING);
    expect(lost).toBe(0);
    expect(current().closed).toBe(true);
  });
});
