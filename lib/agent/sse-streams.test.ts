import { describe, expect, it } from 'vitest';

import type { StreamClosed } from './events';
import { createStreamRegistry, TOO_MANY_FOR_USER, TOO_MANY_IN_CONVERSATION } from './sse-streams';

describe('stream registry', () => {
  function opener(registry: ReturnType<typeof createStreamRegistry>, caps = { perUser: 3, perConversation: 2 }) {
    const closed: Record<string, StreamClosed> = {};
    const open = (name: string, userId: string, conversationId: string) =>
      registry.admit({ userId, conversationId, caps, close: (c) => (closed[name] = c) });
    return { closed, open };
  }

  it('closes the oldest stream of a conversation over its cap, and only that one', () => {
    const registry = createStreamRegistry();
    const { closed, open } = opener(registry);
    open('a1', 'u', 'a');
    open('a2', 'u', 'a');
    expect(closed).toEqual({});
    open('a3', 'u', 'a');
    expect(closed).toEqual({ a1: TOO_MANY_IN_CONVERSATION });
    expect(registry.count('u', 'a')).toBe(2);
  });

  it("closes the user's oldest stream, in any conversation, over the per-user cap", () => {
    const registry = createStreamRegistry();
    const { closed, open } = opener(registry);
    open('a1', 'u', 'a');
    open('b1', 'u', 'b');
    open('other', 'v', 'c');
    open('c1', 'u', 'c');
    expect(closed).toEqual({});
    open('d1', 'u', 'd');
    expect(closed).toEqual({ a1: TOO_MANY_FOR_USER });
    expect(registry.count('u')).toBe(3);
    expect(registry.count('v')).toBe(1);
  });

  it('counts a stream out once it is released, so a new one fits again; releasing twice is harmless', () => {
    const registry = createStreamRegistry();
    const { closed, open } = opener(registry);
    const release = open('a1', 'u', 'a');
    open('a2', 'u', 'a');
    release();
    release();
    open('a3', 'u', 'a');
    expect(closed).toEqual({});
    expect(registry.count('u', 'a')).toBe(2);
  });

  it('a cap of 0 closes the new stream itself', () => {
    const registry = createStreamRegistry();
    const { closed, open } = opener(registry, { perUser: 5, perConversation: 0 });
    open('a1', 'u', 'a');
    expect(closed).toEqual({ a1: TOO_MANY_IN_CONVERSATION });
    expect(registry.count('u')).toBe(0);
  });
});
