import { createClient } from '@redis/client';

import { afterCommit } from '@/db/after-commit';
import type { Db, DbHandle } from '@/db/connection';
import { appendToLog, type AppendOptions } from '@/db/queries/events';
import { errorSummary } from '@/lib/log-safe';

import type { EventBus } from './bus';
import { createSubscribers } from './bus-wire';
import type { BusEvent, RunEvent, StoredWith } from './events';

/**
 * Ends a connection: one that is connected sends what it queued first (a second at most: a socket
 * that died unnoticed never answers), one still trying to reach Redis is dropped.
 */
async function shut(client: { isReady: boolean; isOpen: boolean; close(): Promise<void>; destroy(): void }): Promise<void> {
  if (client.isReady) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([client.close().catch(() => {}), new Promise((r) => (timer = setTimeout(r, 1000)))]);
    clearTimeout(timer);
  }
  if (client.isOpen) client.destroy();
}

/** Every conversation has a channel of its own: an instance hears only what it streams. */
export const redisChannelOf = (conversationId: string) => `switchboard:events:${conversationId}`;

/**
 * An event larger than this travels as a pointer to its row (read back by each receiver that
 * streams the conversation): Redis takes far larger messages, but every subscriber would get it
 * whole, and a pointer is how the Postgres bus already carries large tool results.
 */
const MAX_INLINE_BYTES = 256 * 1024;

/** Publishes waiting for a connection, at most (a few seconds of many conversations streaming). */
const PUBLISH_QUEUE_MAX = 20_000;

export interface RedisEventBus extends EventBus {
  /** Ends both connections to Redis. */
  close(): Promise<void>;
}

export interface RedisBusOptions {
  /** Told of every message sent (its channel and payload): tests count what a turn publishes. */
  onPublish?: (channel: string, payload: string) => void;
  /** Put in front of the connections' names (`CLIENT LIST`), so an operator can tell them apart. */
  name?: string;
}

/**
 * Events over Redis pub/sub, for deployments with several instances: a channel per conversation,
 * subscribed only while this instance streams that conversation, so an instance receives the
 * events of the conversations it streams and not every event of every instance (LISTEN/NOTIFY's
 * one channel), and Postgres sends no notification at all.
 *
 * Pub/sub, not streams: delivery at most once is all a bus owes, because the event log in Postgres
 * is the source of truth: an event stream (./sse.ts) that sees a gap, or is told the bus
 * reconnected (`onResume`), reads the log. Streams would keep a second copy of every event in
 * Redis's memory, to trim, and a blocking read per set of conversations.
 *
 * Events are stored first and published after the transaction that stored them commits
 * (db/after-commit.ts): a receiver never hears of an event it cannot read, nor of one rolled back.
 * Everything is published on one connection, in the order sent (Redis delivers in that order), so
 * live deltas reach a receiver before the stored events written after them.
 */
export function createRedisEventBus(handle: DbHandle, url: string, opts: RedisBusOptions = {}): RedisEventBus {
  const subscribers = createSubscribers();
  const name = opts.name ?? 'switchboard';
  const onError = (role: string) => (err: Error) => console.error(`[bus] redis ${role} connection:`, errorSummary(err));
  // While Redis is away, publishes wait for it, up to a bound: past it they are dropped (receivers
  // lost their subscriptions too, and read the log when they are back), not held in memory.
  const publisher = createClient({ url, name: `${name}-publish`, commandsQueueMaxLength: PUBLISH_QUEUE_MAX }).on(
    'error',
    onError('publish'),
  );
  const subscriber = createClient({ url, name: `${name}-subscribe` }).on('error', onError('subscribe'));
  // `ready` comes again after a reconnect, once the client has subscribed again to every channel:
  // what was published meanwhile is lost, so every subscriber catches up from the log.
  let readyBefore = false;
  subscriber.on('ready', () => {
    if (readyBefore) subscribers.resumeAll();
    readyBefore = true;
  });
  const connections = {
    publisher: publisher.connect(),
    subscriber: subscriber.connect(),
  };
  // A Redis that is down at start is not fatal: the clients retry, publishes wait in their queue.
  connections.publisher.catch(onError('publish'));
  connections.subscriber.catch(onError('subscribe'));

  /** Live deltas not yet published, per conversation: those sent in one synchronous burst share a message. */
  const liveQueue = new Map<string, string[]>();
  let flushScheduled = false;
  let publishFailing = false;

  function publish(conversationId: string, items: string[]) {
    const channel = redisChannelOf(conversationId);
    const payload = `{"es":[${items.join(',')}]}`;
    opts.onPublish?.(channel, payload);
    publisher.publish(channel, payload).then(
      () => (publishFailing = false),
      (err: Error) => {
        // Once per outage, not once per message.
        if (!publishFailing) onError('publish')(err);
        publishFailing = true;
      },
    );
  }

  function flushLive(conversationId?: string) {
    for (const [id, items] of liveQueue) {
      if (conversationId !== undefined && id !== conversationId) continue;
      liveQueue.delete(id);
      publish(id, items);
    }
  }

  function sendLive(event: BusEvent) {
    const item = JSON.stringify({ e: event });
    if (Buffer.byteLength(item) > MAX_INLINE_BYTES) return; // a live delta that large is only ever stored coalesced
    const queued = liveQueue.get(event.conversationId);
    if (queued) queued.push(item);
    else liveQueue.set(event.conversationId, [item]);
    if (flushScheduled) return;
    flushScheduled = true;
    queueMicrotask(() => {
      flushScheduled = false;
      flushLive();
    });
  }

  function publishStored(conversationId: string, events: readonly BusEvent[]) {
    // The live deltas queued before these events go first, on the same connection.
    flushLive(conversationId);
    publish(
      conversationId,
      events.map((e) => {
        const item = JSON.stringify({ e });
        return Buffer.byteLength(item) > MAX_INLINE_BYTES ? JSON.stringify({ ref: { conversationId, seq: e.seq } }) : item;
      }),
    );
  }

  async function storeWith(
    db: Db,
    conversationId: string,
    runId: string | null,
    events: readonly RunEvent[],
    opts: Omit<AppendOptions, 'notice'>,
  ): Promise<StoredWith | null> {
    // No notice: the statement sends no NOTIFY; the events are published once they are committed.
    const written = await appendToLog(db, conversationId, runId, events, opts);
    if (!written) return null;
    const stored = written.events.map((row, i): BusEvent => ({
      conversationId,
      runId,
      type: row.type,
      seq: row.seq,
      data: events[i]!.data,
    }));
    if (stored.length) afterCommit(db, () => publishStored(conversationId, stored));
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

  /** The conversations being subscribed or unsubscribed, in order: a quick re-subscribe waits for the unsubscribe. */
  const channelOps = new Map<string, Promise<void>>();
  function channelOp(conversationId: string, op: () => Promise<void>): Promise<void> {
    const next = (channelOps.get(conversationId) ?? Promise.resolve()).then(op, op);
    channelOps.set(conversationId, next);
    void next.finally(() => channelOps.get(conversationId) === next && channelOps.delete(conversationId)).catch(() => {});
    return next;
  }
  const onMessage = (payload: string) => void subscribers.receive(payload, handle.db);

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
      const { first, remove } = subscribers.add(conversationId, listener, onResume);
      const channel = redisChannelOf(conversationId);
      try {
        // The first subscriber of a conversation subscribes its channel; later ones wait for that too.
        await channelOp(conversationId, async () => {
          if (first) {
            await connections.subscriber;
            await subscriber.subscribe(channel, onMessage);
          }
        });
      } catch (err) {
        remove();
        throw err;
      }
      return () => {
        if (remove()) void channelOp(conversationId, () => subscriber.unsubscribe(channel, onMessage)).catch(onError('subscribe'));
      };
    },
    async close() {
      await Promise.allSettled([publisher, subscriber].map(shut));
    },
  };
}
