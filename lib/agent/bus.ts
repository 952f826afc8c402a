import type { Db, DbHandle } from '@/db/connection';
import { appendToLog, listEventsAfter, type AppendOptions } from '@/db/queries/events';
import { errorSummary } from '@/lib/log-safe';

import { toBusEvent } from './event-payloads';
import type { BusEvent, EventSink, RunEvent, StoredWith } from './events';

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
  // Notifications are sent one after another so that receivers see them in the order sent; the
  // drain starts a microtask late, so live events sent in one synchronous burst share a notification.
  let sending: Promise<void> = Promise.resolve();
  /** Live events waiting for the next notification, of every conversation, in the order sent. */
  const liveQueue: string[] = [];
  let draining = false;
  // Live events queued and sent so far, and the stores waiting for the ones queued before them.
  let liveQueued = 0;
  let liveSent = 0;
  const flushWaiters: { upTo: number; resolve: () => void }[] = [];

  function dispatch(event: BusEvent) {
    for (const l of listeners.get(event.conversationId) ?? []) {
      try {
        l(event);
      } catch (err) {
        console.error('[bus] listener failed:', errorSummary(err));
      }
    }
  }

  /** A stored event travels as `o` (its place among the statement's events, from 1) and `e` without its seq, or as a pointer to its row. */
  type Item = { e?: Omit<BusEvent, 'seq'>; o?: number; ref?: { conversationId: string; o?: number; seq?: number } };
  /** `b`: the seq before the first event of the statement that stored them (absent for live deltas). */
  type Message = Item & { b?: number; es?: Item[] };

  async function onPayload(payload: string) {
    let msg: Message;
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    const seqOf = (o: number | undefined) => (msg.b !== undefined && o !== undefined ? msg.b + o : undefined);
    // In order: a stored event too large to travel inline is read back before the next one is dispatched.
    for (const item of msg.es ?? [msg]) {
      if (item.e) {
        const seq = seqOf(item.o);
        dispatch(seq === undefined ? { ...item.e } : { ...item.e, seq });
      } else if (item.ref && listeners.has(item.ref.conversationId)) {
        const seq = seqOf(item.ref.o);
        if (seq === undefined) continue;
        const [row] = await listEventsAfter(handle.db, item.ref.conversationId, seq - 1, 1);
        if (row?.seq === seq) dispatch(toBusEvent(row));
      }
    }
  }

  /**
   * The NOTIFY payload tails announcing events stored in one statement (db/queries/events.ts
   * puts `{"b":<seq>,` in front): as few as fit under the payload limit, an event too large to
   * travel inline as a pointer to its row.
   */
  function noticeTails(conversationId: string, runId: string | null, events: readonly RunEvent[]): string[] {
    const tails: string[] = [];
    let items: string[] = [];
    // Room for the `{"b":<seq>,` prefix the statement adds.
    const limit = MAX_INLINE_PAYLOAD - 32;
    const tail = (list: string[]) => `"es":[${list.join(',')}]}`;
    events.forEach((event, i) => {
      let item = JSON.stringify({ o: i + 1, e: { conversationId, runId, type: event.type, data: event.data } });
      if (Buffer.byteLength(item) > limit) item = JSON.stringify({ ref: { conversationId, o: i + 1 } });
      if (items.length && Buffer.byteLength(tail([...items, item])) > limit) {
        tails.push(tail(items));
        items = [];
      }
      items.push(item);
    });
    if (items.length) tails.push(tail(items));
    return tails;
  }

  /**
   * Live deltas go out in order, each notification carrying every live event queued by the time
   * it is sent, of all conversations (as many as fit in one payload). One at a time per event
   * capped a process at ~1,000 a second — 200 conversations streaming at once queued behind it,
   * and stored events, which wait for the queue, held their connections meanwhile.
   */
  function sendLive(event: BusEvent) {
    const item = JSON.stringify({ e: event });
    if (Buffer.byteLength(item) > MAX_INLINE_PAYLOAD - 16) return; // a live delta that large is only ever stored coalesced
    liveQueue.push(item);
    liveQueued++;
    if (draining) return;
    draining = true;
    sending = sending.then(async () => {
      while (liveQueue.length) {
        // No pause to gather more: what queued during the last send goes in the next. (A 4 ms
        // pause capped the queue at ~11,000 events a second, below 200 conversations' 40,000.)
        const batch = takeLiveBatch();
        await handle
          .notify(CHANNEL, `{"es":[${batch.join(',')}]}`)
          .catch((err) => console.error('[bus] notify failed:', errorSummary(err)));
        liveSent += batch.length;
        while (flushWaiters.length && flushWaiters[0]!.upTo <= liveSent) flushWaiters.shift()!.resolve();
      }
      draining = false;
    });
  }

  function liveSentUpTo(upTo: number): Promise<void> {
    if (liveSent >= upTo) return Promise.resolve();
    return new Promise((resolve) => flushWaiters.push({ upTo, resolve }));
  }

  /** The oldest queued live events that fit in one payload (at least one). */
  function takeLiveBatch(): string[] {
    let bytes = 16;
    let n = 0;
    while (n < liveQueue.length) {
      const size = Buffer.byteLength(liveQueue[n]!) + 1;
      if (n > 0 && bytes + size > MAX_INLINE_PAYLOAD) break;
      bytes += size;
      n++;
    }
    return liveQueue.splice(0, n);
  }

  async function storeWith(
    db: Db,
    conversationId: string,
    runId: string | null,
    events: readonly RunEvent[],
    opts: Omit<AppendOptions, 'notice'>,
  ): Promise<StoredWith | null> {
    // Live deltas sent before these events reach receivers before them. Only those: the queue
    // may never be empty while other conversations stream, so a store does not wait for that.
    await liveSentUpTo(liveQueued);
    const notice = { channel: CHANNEL, tails: noticeTails(conversationId, runId, events) };
    const written = await appendToLog(db, conversationId, runId, events, { ...opts, notice: events.length ? notice : undefined });
    if (!written) return null;
    const stored = written.events.map((row, i): BusEvent => ({
      conversationId,
      runId,
      type: row.type,
      seq: row.seq,
      data: events[i]!.data,
    }));
    return { events: stored, message: written.message, guarded: written.guarded, conversationTitle: written.conversationTitle };
  }

  async function store(
    db: Db,
    conversationId: string,
    runId: string | null,
    events: readonly RunEvent[],
    opts: { runStart?: boolean } = {},
  ) {
    if (events.length === 0) return [];
    return (await storeWith(db, conversationId, runId, events, opts))!.events;
  }

  return {
    async persist(conversationId, runId, type, data) {
      const [event] = await store(handle.db, conversationId, runId, [{ type, data } as RunEvent]);
      return event!;
    },
    store,
    storeWith,
    live(conversationId, runId, type, data) {
      sendLive({ conversationId, runId, type, data });
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
