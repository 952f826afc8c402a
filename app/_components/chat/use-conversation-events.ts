'use client';

import { useEffect, useRef } from 'react';

import {
  RUN_END_EVENTS,
  RUN_EVENT_TYPES,
  RUN_PAUSE_EVENTS,
  RUN_RUNNING_EVENTS,
  STREAM_EVENTS,
  type StreamClosed,
} from '@/lib/agent/events';

import type { ChatEvent } from './chat-state';

export interface FollowHandlers {
  onEvent: (e: ChatEvent) => void;
  /** The server ended the stream on purpose (`stream.closed`): do not reopen it by yourself. */
  onClosed: (closed: StreamClosed) => void;
  /** The stream failed, ended early, or went silent while the run is active: resynchronize. */
  onLost: () => void;
}

/** The part of EventSource the follower uses (a fake one in tests). */
export interface EventSourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (ev: MessageEvent<string>) => void): void;
  onerror: ((ev: Event) => void) | null;
  close(): void;
}

const CONNECTING = 0;

/**
 * Follows a conversation's events from `afterSeq` until the run ends. Returns the function that
 * stops following (without calling any handler).
 *
 * The server ends a stream when the run ends or pauses. A pause is the end of that stream, not a
 * loss: a new stream then waits for the run to go on, until the server closes it as `idle`. Every
 * other way a stream can end while the run is active is reported as lost — an error status, a
 * stream that closes early, or a stream that stays silent for two ping intervals (a live one
 * sends `ping`; a request stuck before its first byte, such as one `next dev` holds while it
 * compiles the route, sends nothing at all).
 */
export function followConversation(opts: {
  conversationId: string;
  afterSeq: number;
  pingMs: number;
  handlers: () => FollowHandlers;
  open?: (url: string) => EventSourceLike;
}): () => void {
  const open = opts.open ?? ((url: string) => new EventSource(url));
  let source: EventSourceLike | undefined;
  let lastSeq = opts.afterSeq;
  let heard = Date.now();
  let paused = false;
  let over = false;

  const stop = () => {
    over = true;
    clearInterval(watchdog);
    source?.close();
  };
  const lost = () => {
    stop();
    opts.handlers().onLost();
  };
  const hear = () => {
    heard = Date.now();
  };

  const connect = () => {
    source?.close();
    // A pause may end only one stream: a new one that ends without a word is a loss.
    paused = false;
    const s = open(`/api/conversations/${opts.conversationId}/events?after=${lastSeq}`);
    source = s;
    s.addEventListener('open', hear);
    s.addEventListener(STREAM_EVENTS.ping, hear);
    s.addEventListener(STREAM_EVENTS.closed, (ev) => {
      stop();
      opts.handlers().onClosed(parse(ev) as unknown as StreamClosed);
    });
    for (const type of RUN_EVENT_TYPES) {
      s.addEventListener(type, (ev) => {
        hear();
        const data = parse(ev);
        if (!data || over) return;
        if (typeof data.seq === 'number' && data.seq > lastSeq) lastSeq = data.seq;
        if (RUN_PAUSE_EVENTS.has(type)) paused = true;
        else if (RUN_RUNNING_EVENTS.has(type)) paused = false;
        // The server sent it through its schema (lib/agent/event-payloads.ts): the name decides the shape.
        opts.handlers().onEvent({ type, data } as ChatEvent);
        if (RUN_END_EVENTS.has(type)) stop();
      });
    }
    s.onerror = () => {
      if (over || source !== s) return;
      // CLOSED: the server refused (204: nothing to follow; 401; 5xx). CONNECTING: it ended the
      // stream, or the network dropped it; EventSource would retry on its own, we decide instead.
      if (s.readyState === CONNECTING && paused) {
        hear();
        connect();
      } else lost();
    };
  };

  const watchdog = setInterval(
    () => {
      if (!over && Date.now() - heard > 2 * opts.pingMs) lost();
    },
    Math.max(100, Math.floor(opts.pingMs / 4)),
  );
  connect();
  return stop;
}

function parse(ev: MessageEvent<string>): Record<string, unknown> | null {
  try {
    const data = JSON.parse(ev.data);
    return data && typeof data === 'object' ? data : null;
  } catch {
    return null;
  }
}

/**
 * Follows a conversation's events from `afterSeq` while `follow` is not null; `key` forces a
 * fresh connection (after a decision, a Stop, or a resync). See `followConversation`.
 */
export function useConversationEvents(
  conversationId: string,
  follow: { afterSeq: number; key: number } | null,
  handlers: FollowHandlers,
  pingMs: number,
): void {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });

  const afterSeq = follow?.afterSeq ?? null;
  const key = follow?.key ?? 0;
  useEffect(() => {
    if (afterSeq === null) return;
    return followConversation({ conversationId, afterSeq, pingMs, handlers: () => latest.current });
  }, [conversationId, afterSeq, key, pingMs]);
}
