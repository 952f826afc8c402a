import type { StreamClosed } from './events';

/** How many event streams one user, and one conversation, may hold open at once. */
export interface StreamCaps {
  perUser: number;
  perConversation: number;
}

export interface StreamRegistry {
  /**
   * Counts a new stream in. If that puts its conversation or its user over a cap, the oldest
   * streams over it are closed (each gets a final `stream.closed`); the new one stays unless a cap is 0.
   * Returns the function that counts the stream out again (idempotent).
   */
  admit(stream: { userId: string; conversationId: string; caps: StreamCaps; close: (closed: StreamClosed) => void }): () => void;
  /** Open streams of a user, or of one of their conversations. */
  count(userId: string, conversationId?: string): number;
  /** Every open stream of this process (the active-streams gauge of /api/metrics). */
  total(): number;
}

export const TOO_MANY_IN_CONVERSATION: StreamClosed = {
  reason: 'too_many_streams',
  message: 'This conversation was opened in another tab or window, so this one stopped following it.',
};

export const TOO_MANY_FOR_USER: StreamClosed = {
  reason: 'too_many_streams',
  message: 'Too many tabs are following conversations at once, so this one, the oldest, stopped following.',
};

type Entry = { conversationId: string; close: (closed: StreamClosed) => void };

/**
 * The open event streams of this process. The caps are per instance: with several instances
 * behind a load balancer a user can hold up to the cap on each one. Counting across instances
 * would cost a shared write on every open and close, and each instance only has to protect its
 * own memory and listeners — which is what an open stream costs.
 *
 * A new stream evicts the oldest rather than being refused: the newest tab is the one a person
 * is looking at; the evicted page says why and offers to continue there.
 */
export function createStreamRegistry(): StreamRegistry {
  // Per user, in the order the streams were opened (Map keeps insertion order).
  const byUser = new Map<string, Map<number, Entry>>();
  let nextId = 0;

  function evictOldest(streams: Map<number, Entry>, over: (e: Entry) => boolean, cap: number, closed: StreamClosed) {
    const matching = [...streams].filter(([, e]) => over(e));
    for (const [id, e] of matching.slice(0, Math.max(0, matching.length - Math.max(cap, 0)))) {
      streams.delete(id);
      e.close(closed);
    }
  }

  return {
    admit({ userId, conversationId, caps, close }) {
      let streams = byUser.get(userId);
      if (!streams) byUser.set(userId, (streams = new Map()));
      const id = nextId++;
      streams.set(id, { conversationId, close });
      // With a cap of at least 1 the new stream is never among the oldest; a cap of 0 closes it too.
      evictOldest(streams, (e) => e.conversationId === conversationId, caps.perConversation, TOO_MANY_IN_CONVERSATION);
      evictOldest(streams, () => true, caps.perUser, TOO_MANY_FOR_USER);
      if (streams.size === 0) byUser.delete(userId);
      return () => {
        const mine = byUser.get(userId);
        if (!mine?.delete(id)) return;
        if (mine.size === 0) byUser.delete(userId);
      };
    },
    count(userId, conversationId) {
      const streams = [...(byUser.get(userId)?.values() ?? [])];
      return conversationId ? streams.filter((e) => e.conversationId === conversationId).length : streams.length;
    },
    total() {
      let open = 0;
      for (const streams of byUser.values()) open += streams.size;
      return open;
    },
  };
}
