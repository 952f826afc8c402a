'use client';

import { useEffect, useRef } from 'react';

import { RUN_EVENT_TYPES } from '@/lib/agent/events';

import type { ChatEvent } from './chat-state';

// Only an end is final. A replayed pause may be history (the run paused, was decided, and went
// on); the server ends the stream at a pause that is current, and EventSource then reconnects
// from Last-Event-ID and waits there for the run to resume.
const ENDED = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/**
 * Follows a conversation's events from `afterSeq` while it is not null. `key` forces a fresh
 * connection (after a decision, a Stop, or a failure). `onLost` is called when the stream closed
 * for good without the run ending (a 401, 5xx or network loss): the caller resynchronizes.
 */
export function useConversationEvents(
  conversationId: string,
  follow: { afterSeq: number; key: number } | null,
  onEvent: (e: ChatEvent) => void,
  onLost: () => void,
): void {
  const handlers = useRef({ onEvent, onLost });
  useEffect(() => {
    handlers.current = { onEvent, onLost };
  });

  const afterSeq = follow?.afterSeq ?? null;
  const key = follow?.key ?? 0;
  useEffect(() => {
    if (afterSeq === null) return;
    const source = new EventSource(`/api/conversations/${conversationId}/events?after=${afterSeq}`);
    let ended = false;
    const listeners = RUN_EVENT_TYPES.map((type) => {
      const listener = (ev: MessageEvent<string>) => {
        let data: ChatEvent['data'];
        try {
          data = JSON.parse(ev.data);
        } catch {
          return;
        }
        handlers.current.onEvent({ type, data });
        if (ENDED.has(type)) {
          ended = true;
          source.close();
        }
      };
      source.addEventListener(type, listener);
      return [type, listener] as const;
    });
    source.onerror = () => {
      // CONNECTING: EventSource retries by itself. CLOSED: it gave up (e.g. a 204 or an error status).
      if (source.readyState === EventSource.CLOSED && !ended) handlers.current.onLost();
    };
    return () => {
      for (const [type, l] of listeners) source.removeEventListener(type, l);
      source.onerror = null;
      source.close();
    };
  }, [conversationId, afterSeq, key]);
}
