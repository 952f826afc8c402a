import type { DbHandle } from '@/db/connection';
import { appendEvent, listEventsAfter } from '@/db/queries/events';
import { errorSummary } from '@/lib/log-safe';

import { toBusEvent } from './event-payloads';
import type { BusEvent, EventSink } from './events';

const CHANNEL = 'switchboard_events';
// NOTIFY payloads must stay under 8000 bytes; larger events travel as a pointer to their row.
const MAX_INLINE_PAYLOAD = 7000;

type Listener = (event: BusEvent) => void;

export interface EventBus extends EventSink {
  /** Live events of one conversation, from every instance. Resolves once listening. */
  subscribe(conversationId: string, listener: Listener): Promise<() => void>;
}

/**
 * Events reach every instance through Postgres LISTEN/NOTIFY (in-process with PGlite, which
 * implements the same calls), so a client following a conversation on one instance sees a run
 * driven by another.
 */
export function createEventBus(handle: DbHandle): EventBus {
  const listeners = new Map<string, Set<Listener>>();
  let listening: Promise<unknown> | undefined;
  // Notifications are sent one after another so that receivers see them in the order sent.
  let sending: Promise<void> = Promise.resolve();

  function dispatch(event: BusEvent) {
    for (const l of listeners.get(event.conversationId) ?? []) {
      try {
        l(event);
      } catch (err) {
        console.error('[bus] listener failed:', errorSummary(err));
      }
    }
  }

  async function onPayload(payload: string) {
    let msg: { e?: BusEvent; ref?: { conversationId: string; seq: number } };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    if (msg.e) return dispatch(msg.e);
    if (msg.ref && listeners.has(msg.ref.conversationId)) {
      const [row] = await listEventsAfter(handle.db, msg.ref.conversationId, msg.ref.seq - 1, 1);
      if (row?.seq === msg.ref.seq) dispatch(toBusEvent(row));
    }
  }

  function broadcast(event: BusEvent) {
    let payload = JSON.stringify({ e: event });
    if (Buffer.byteLength(payload) > MAX_INLINE_PAYLOAD) {
      if (event.seq === undefined) return; // a live delta that large is only ever stored coalesced
      payload = JSON.stringify({ ref: { conversationId: event.conversationId, seq: event.seq } });
    }
    sending = sending.then(() => handle.notify(CHANNEL, payload)).catch((err) => console.error('[bus] notify failed:', errorSummary(err)));
  }

  return {
    async persist(conversationId, runId, type, data) {
      const row = await appendEvent(handle.db, { conversationId, runId, type, data });
      const event: BusEvent = { conversationId, runId, type, seq: row.seq, data };
      broadcast(event);
      return event;
    },
    broadcast,
    live(conversationId, runId, type, data) {
      broadcast({ conversationId, runId, type, data });
    },
    async subscribe(conversationId, listener) {
      listening ??= handle.listen(CHANNEL, (p) => void onPayload(p));
      await listening;
      let set = listeners.get(conversationId);
      if (!set) listeners.set(conversationId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(conversationId);
      };
    },
  };
}
