'use client';
import { useEffect, useRef } from 'react';
import { RUN_EVENT_TYPES } from '@/lib/agent/events';
import type { ChatEvent } from './chat-state';

const CLOSING = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.awaiting_approval', 'run.awaiting_input']);

/**
 * Follows a conversation's events from `afterSeq` while `enabled`. EventSource reconnects by
 * itself with Last-Event-ID; the server ends the stream when the run pauses or ends.
 */
export function useConversationEvents(
  conversationId: string,
  afterSeq: number | null,
  onEvent: (e: ChatEvent) => void,
): void {
  const handler = useRef(onEvent);
  useEffect(() => {
    handler.current = onEvent;
  });

  useEffect(() => {
    if (afterSeq === null) return;
    const source = new EventSource(`/api/conversations/${conversationId}/events?after=${afterSeq}`);
    const listeners = RUN_EVENT_TYPES.map((type) => {
      const listener = (ev: MessageEvent<string>) => {
        let data: ChatEvent['data'];
        try {
          data = JSON.parse(ev.data);
        } catch {
          return;
        }
        handler.current({ type, data });
        if (CLOSING.has(type)) source.close();
      };
      source.addEventListener(type, listener);
      return [type, listener] as const;
    });
    return () => {
      for (const [type, l] of listeners) source.removeEventListener(type, l);
      source.close();
    };
  }, [conversationId, afterSeq]);
}
