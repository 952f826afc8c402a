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

  type Item = { e?: BusEvent; ref?: Ref };
  type Ref = { conversationId: string; seq: number };

  async function onPayload(payload: string) {
    let msg: Item & { es?: Item[] };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    // In order: a stored event too large to travel inline is read back before the next one is dispatched.
    for (const item of msg.es ?? [msg]) {
      if (item.e) dispatch(item.e);
      else if (item.ref && listeners.has(item.ref.conversationId)) {
        const [row] = await listEventsAfter(handle.db, item.ref.conversationId, item.ref.seq - 1, 1);
        if (row?.seq === item.ref.seq) dispatch(toBusEvent(row));
      }
    }
  }

  /** One NOTIFY for the events of one commit (more only when they do not fit in one payload). */
  function broadcast(...events: BusEvent[]) {
    const payloads: string[] = [];
    let items: string[] = [];
    const flush = () => {
      if (items.length) payloads.push(items.length === 1 ? items[0]! : `{"es":[${items.join(',')}]}`);
      items = [];
    };
    for (const event of events) {
      let item = JSON.stringify({ e: event });
      if (Buffer.byteLength(item) > MAX_INLINE_PAYLOAD) {
        if (event.seq === undefined) continue; // a live delta that large is only ever stored coalesced
        item = JSON.stringify({ ref: { conversationId: event.conversationId, seq: event.seq } });
      }
      if (Buffer.byteLength(`{"es":[${[...items, item].join(',')}]}`) > MAX_INLINE_PAYLOAD) flush();
      items.push(item);
    }
    flush();
    for (const payload of payloads) {
      sending = sending
        .then(() => handle.notify(CHANNEL, payload))
        .catch((err) => console.error('[bus] notify failed:', errorSummary(err)));
    }
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
