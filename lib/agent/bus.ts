import type { Db, DbHandle } from '@/db/connection';
import { appendToLog, type AppendOptions } from '@/db/queries/events';
import { errorSummary } from '@/lib/log-safe';

import { createSubscribers, type Listener } from './bus-wire';
import type { BusEvent, EventSink, RunEvent, StoredWith } from './events';

const CHANNEL = 'switchboard_events';
// NOTIFY payloads must stay under 8000 bytes; larger events travel as a pointer to their row.
const MAX_INLINE_PAYLOAD = 7000;
/**
 * How long live deltas wait for more before a notification that is not full goes out, once one
 * has just gone (the first after a quiet spell goes at once). Sending as soon as the last one
 * returned made a notification per round trip: ~10 a turn at 20 streaming conversations, a fifth
 * of the turn's statements (issue 28). Never waited for when a payload is full or a store waits
 * for the queue (a pause every time capped the queue: 4 ms held it to ~11,000 events a second,
 * below 200 conversations' 40,000); event streams gather text for 20 ms anyway (./sse.ts).
 */
export const LIVE_GATHER_MS = 10;

export interface EventBus extends EventSink {
  /**
   * Live events of one conversation, from every instance. Resolves once listening. `onResume` is
   * called when this bus may have missed some of them (its connection to the database or the
   * broker was lost and is listening again): the subscriber reads the log to catch up, since a
   * bus never replays what it missed.
   */
  subscribe(conversationId: string, listener: Listener, onResume?: () => void): Promise<() => void>;
  /**
   * Broadcasts a notice, never stored, on a topic that is not a conversation (a person's inbox of
   * other clients' calls, lib/gateway/approvals.ts), to the subscribers of that topic on every
   * instance. At most once, like everything on a bus: a subscriber reads the truth from the database.
   */
  announce(topic: string, type: string, data: Record<string, unknown>): void;
}

/**
 * Events reach every instance through Postgres LISTEN/NOTIFY (in-process with PGlite, which
 * implements the same calls), so a client following a conversation on one instance sees a run
 * driven by another.
 */
export function createEventBus(handle: DbHandle): EventBus {
  const subscribers = createSubscribers();
  let listening: Promise<unknown> | undefined;
  // Notifications are sent one after another so that receivers see them in the order sent; live
  // events sent within LIVE_GATHER_MS of each other share a notification.
  let sending: Promise<void> = Promise.resolve();
  /** Live events waiting for the next notification, of every conversation, in the order sent, with their size in the payload. */
  const liveQueue: { item: string; size: number }[] = [];
  let queuedBytes = 0;
  let draining = false;
  /** Ends the drain's wait for more live events early; set while it waits. */
  let gathering: (() => void) | undefined;
  // Live events queued and sent so far, and the stores waiting for the ones queued before them.
  let liveQueued = 0;
  let liveSent = 0;
  const flushWaiters: { upTo: number; resolve: () => void }[] = [];

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
    const size = Buffer.byteLength(item) + 1;
    if (size > MAX_INLINE_PAYLOAD - 16) return; // a live delta that large is only ever stored coalesced
    liveQueue.push({ item, size });
    liveQueued++;
    queuedBytes += size;
    if (queuedBytes >= MAX_INLINE_PAYLOAD) stopGathering();
    if (draining) return;
    draining = true;
    sending = sending.then(async () => {
      // The first after a quiet spell goes at once (what was sent in one synchronous burst shares it):
      // the first text of a turn is not held back.
      for (let first = true; liveQueue.length; first = false) {
        // Later ones, while the queue keeps filling, wait a little for more unless full or a store waits.
        if (!first && queuedBytes < MAX_INLINE_PAYLOAD && flushWaiters.length === 0) await gather();
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

  /** Waits `LIVE_GATHER_MS`, or less when the queue fills a payload or a store waits. */
  function gather(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(stopGathering, LIVE_GATHER_MS);
      gathering = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  function stopGathering() {
    const stop = gathering;
    gathering = undefined;
    stop?.();
  }

  function liveSentUpTo(upTo: number): Promise<void> {
    if (liveSent >= upTo) return Promise.resolve();
    const sent = new Promise<void>((resolve) => flushWaiters.push({ upTo, resolve }));
    stopGathering();
    return sent;
  }

  /** The oldest queued live events that fit in one payload (at least one). */
  function takeLiveBatch(): string[] {
    let bytes = 16;
    let n = 0;
    while (n < liveQueue.length) {
      const { size } = liveQueue[n]!;
      if (n > 0 && bytes + size > MAX_INLINE_PAYLOAD) break;
      bytes += size;
      n++;
    }
    queuedBytes -= bytes - 16;
    return liveQueue.splice(0, n).map((q) => q.item);
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
    announce(topic, type, data) {
      sendLive({ conversationId: topic, runId: null, type, data });
    },
    async subscribe(conversationId, listener, onResume) {
      listening ??= handle.listen(
        CHANNEL,
        (p) => void subscribers.receive(p, handle.db),
        () => subscribers.resumeAll(),
      );
      await listening;
      const { remove } = subscribers.add(conversationId, listener, onResume);
      return () => void remove();
    },
  };
}
