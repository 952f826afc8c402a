import { createClient } from '@redis/client';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPostgres, type DbHandle } from '@/db/connection';
import { busFactory, TEST_BUSES, TEST_REDIS_URL } from '@/test/buses';
import { openTestDb } from '@/test/db';
import { conversationWithRun, samplePayload, userAndConversation } from '@/test/engine-harness';
import { startTcpProxy } from '@/test/fixtures/tcp-proxy';
import { sseReader, type Frame } from '@/test/sse-reader';

import type { BusEvent } from './events';
import { openEventStream } from './sse';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean, ms = 5000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const delta = (messageId: string, offset: number, text: string) => ({ messageId, blockIndex: 0, offset, text });
const textOf = (e: BusEvent) => (e.data as { text: string }).text;

/**
 * The contract every event bus keeps (lib/agent/bus.ts over the database, lib/agent/redis-bus.ts
 * over Redis), run on each: who hears what, in which order, nothing before its commit, and what
 * happens when a bus loses its connection.
 */
for (const { name, bus: kind, db, available } of TEST_BUSES) {
  describe.skipIf(!available)(`event bus: ${name}`, () => {
    let h: DbHandle & { url?: string };
    let other: DbHandle | undefined;
    const buses = busFactory(kind);
    beforeAll(async () => {
      h = await openTestDb(db);
      // With Postgres, a second connection pool stands in for a second instance.
      if (h.url) other = await openPostgres(h.url, { max: 2 });
    });
    afterAll(async () => {
      await buses.closeAll();
      await other?.close();
      await h?.close();
    });
    /** A bus of another instance: its own connections (to the database, and to Redis). */
    const elsewhere = () => buses.open(other ?? h);

    it("announces a notice on a topic that is no conversation to that topic's subscribers on another instance only", async () => {
      const sender = buses.open(h);
      const receiver = elsewhere();
      const topic = `client-approvals:${crypto.randomUUID()}`;
      const heard: BusEvent[] = [];
      const others: BusEvent[] = [];
      const off = await receiver.subscribe(topic, (e) => heard.push(e));
      const offOther = await receiver.subscribe(`client-approvals:${crypto.randomUUID()}`, (e) => others.push(e));
      sender.announce(topic, 'client_approvals.changed', { id: 'a', status: 'pending_approval' });
      await waitFor(() => heard.length === 1);
      expect(heard[0]).toMatchObject({ conversationId: topic, runId: null, type: 'client_approvals.changed', data: { id: 'a' } });
      await sleep(50);
      expect(others).toEqual([]);
      off();
      offOther();
    });

    it('delivers stored and live events to subscribers of that conversation only, in order', async () => {
      const { conversation } = await userAndConversation(h);
      const { conversation: unrelated } = await userAndConversation(h);
      const sender = buses.open(h);
      const receiver = elsewhere();
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      const foreign: BusEvent[] = [];
      const offForeign = await receiver.subscribe(unrelated.id, (e) => foreign.push(e));

      for (let i = 0; i < 5; i++) await sender.persist(conversation.id, null, 'message.delta', delta('m1', i, String(i)));
      sender.live(conversation.id, null, 'message.delta', delta('m1', 5, 'live'));
      // Bigger than a NOTIFY payload may be (and than the Redis bus sends inline): a pointer, read back from the log.
      await sender.persist(conversation.id, null, 'message.delta', delta('m1', 6, 'x'.repeat(300_000)));
      await waitFor(() => seen.length === 7);
      expect(seen.slice(0, 5).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(seen[5]!.seq).toBeUndefined();
      expect(seen[5]!.data).toEqual(delta('m1', 5, 'live'));
      expect(seen[6]).toMatchObject({ seq: 6, type: 'message.delta', data: delta('m1', 6, 'x'.repeat(300_000)) });
      expect(foreign).toEqual([]);
      off();
      offForeign();
    });

    it('announces the events of one statement in one message, in order, a too-large one as a pointer in its place', async () => {
      const { conversation } = await userAndConversation(h);
      const notified: string[] = [];
      const published: string[] = [];
      const counting = { ...h, notify: async (channel: string, payload: string) => (notified.push(payload), h.notify(channel, payload)) };
      const sender = buses.open(counting, { onPublish: (_channel, payload) => published.push(payload) });
      const receiver = elsewhere();
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      const stored = await sender.store(counting.db, conversation.id, null, [
        { type: 'message.delta', data: delta('m2', 0, 'a') },
        { type: 'message.delta', data: delta('m2', 1, 'y'.repeat(300_000)) },
        { type: 'message.delta', data: delta('m2', 300_001, 'b') },
      ]);
      expect(stored.map((r) => r.seq)).toEqual([1, 2, 3]);
      await waitFor(() => seen.length === 3);
      // The database's bus: the statement that stores them announces them, no NOTIFY of its own.
      // Redis: one message, and the database sends no notification at all.
      expect(notified).toEqual([]);
      expect(published).toHaveLength(kind === 'redis' ? 1 : 0);
      expect(seen.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(textOf(seen[1]!)).toHaveLength(300_000);
      off();
    });

    it('a stored event reaches receivers after the live deltas sent before it', async () => {
      const { conversation } = await userAndConversation(h);
      const sender = buses.open(h);
      const receiver = elsewhere();
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      // Large enough that the database's bus needs several notifications for them.
      for (let i = 0; i < 12; i++) sender.live(conversation.id, null, 'message.delta', delta('m3', i, `${i}:${'z'.repeat(1_500)}`));
      await sender.persist(conversation.id, null, 'message.delta', delta('m3', 100, 'stored'));
      await waitFor(() => seen.length === 13);
      expect(seen.map((e) => textOf(e).split(':')[0])).toEqual([...Array.from({ length: 12 }, (_, i) => String(i)), 'stored']);
      off();
    });

    it.skipIf(kind !== 'postgres')(
      'gathers the live deltas of every conversation sent together into as few notifications as fit',
      async () => {
        const convs = await Promise.all([1, 2, 3].map(async () => (await userAndConversation(h)).conversation.id));
        const notified: string[] = [];
        const counting = { ...h, notify: async (channel: string, payload: string) => (notified.push(payload), h.notify(channel, payload)) };
        const sender = buses.open(counting);
        const receiver = elsewhere();
        const seen = new Map<string, string[]>(convs.map((c) => [c, []]));
        const offs = await Promise.all(convs.map((c) => receiver.subscribe(c, (e) => seen.get(c)!.push(textOf(e)))));
        // 30 small deltas, ten per conversation, interleaved as streams interleave: one notification.
        for (let i = 0; i < 10; i++) for (const c of convs) sender.live(c, null, 'message.delta', delta('m4', i, `${c.slice(0, 4)}-${i}`));
        await waitFor(() => [...seen.values()].every((texts) => texts.length === 10));
        expect(notified).toHaveLength(1);
        for (const c of convs) expect(seen.get(c)).toEqual(Array.from({ length: 10 }, (_, i) => `${c.slice(0, 4)}-${i}`));

        // Larger ones split across notifications under the payload limit, still in order.
        notified.length = 0;
        for (let i = 0; i < 12; i++) sender.live(convs[0]!, null, 'message.delta', delta('m4', 100 + i, `${i}:${'z'.repeat(1_500)}`));
        await waitFor(() => seen.get(convs[0]!)!.length === 22);
        expect(notified.length).toBeGreaterThanOrEqual(3);
        expect(notified.every((p) => Buffer.byteLength(p) < 8000)).toBe(true);
        offs.forEach((off) => off());
      },
    );

    it.skipIf(kind !== 'redis')('publishes the live deltas of one burst as one message per conversation, on its own channel', async () => {
      const convs = await Promise.all([1, 2, 3].map(async () => (await userAndConversation(h)).conversation.id));
      const channels: string[] = [];
      const sender = buses.open(h, { onPublish: (channel) => channels.push(channel) });
      const receiver = elsewhere();
      const seen = new Map<string, string[]>(convs.map((c) => [c, []]));
      const offs = await Promise.all(convs.map((c) => receiver.subscribe(c, (e) => seen.get(c)!.push(textOf(e)))));
      for (let i = 0; i < 10; i++) for (const c of convs) sender.live(c, null, 'message.delta', delta('m4', i, `${c.slice(0, 4)}-${i}`));
      await waitFor(() => [...seen.values()].every((texts) => texts.length === 10));
      expect(channels.sort()).toEqual(convs.map((c) => `switchboard:events:${c}`).sort());
      for (const c of convs) expect(seen.get(c)).toEqual(Array.from({ length: 10 }, (_, i) => `${c.slice(0, 4)}-${i}`));
      offs.forEach((off) => off());
    });

    it.skipIf(kind !== 'postgres')(
      'a stored event waits for the live deltas sent before it, not for those other conversations keep sending',
      async () => {
        const { conversation: streaming } = await userAndConversation(h);
        const { conversation: storing } = await userAndConversation(h);
        // A notification takes 2 ms: the queue of a conversation streaming meanwhile is never empty.
        const slow = { ...h, notify: async (channel: string, payload: string) => (await sleep(2), h.notify(channel, payload)) };
        const sender = buses.open(slow);
        let offset = 0;
        const next = () => delta('m5', offset++, 'w');
        const pump = setInterval(() => {
          for (let i = 0; i < 5; i++) sender.live(streaming.id, null, 'message.delta', next());
        }, 1);
        try {
          await sleep(50);
          // The pump never stops while this waits: a store that waited for the bus's queue to run empty
          // would never resolve. The deadline only turns that hang into a clear failure.
          const stored = sender.persist(storing.id, null, 'message.delta', delta('m6', 0, 'stored'));
          expect(await Promise.race([stored.then(() => 'stored'), sleep(10_000).then(() => 'still waiting')])).toBe('stored');
        } finally {
          clearInterval(pump);
        }
        // What was queued is all sent before a store on the streaming conversation.
        await sender.persist(streaming.id, null, 'message.delta', next());
      },
    );

    it('announces events stored in a transaction when it commits, and nothing of what rolled back', async () => {
      const { conversation } = await userAndConversation(h);
      const sender = buses.open(h);
      const receiver = elsewhere();
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      const retrying = { type: 'run.retrying' as const, data: { attempt: 1, delayMs: 1, status: 529, message: 'busy' } };
      await expect(
        h.db.transaction(async (tx) => {
          await sender.store(tx, conversation.id, null, [retrying]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');

      await h.db.transaction(async (tx) => {
        await sender.store(tx, conversation.id, null, [{ type: 'message.delta', data: delta('m7', 0, 'kept') }]);
        // A savepoint that rolls back takes its events with it; the transaction goes on.
        await tx
          .transaction(async (inner) => {
            await sender.store(inner, conversation.id, null, [retrying]);
            throw new Error('roll back the savepoint');
          })
          .catch(() => {});
        await sender.store(tx, conversation.id, null, [{ type: 'message.delta', data: delta('m7', 4, 'also') }]);
        await sleep(150);
        // Stored, not committed: nobody has heard of them yet.
        expect(seen).toEqual([]);
      });
      await waitFor(() => seen.length === 2);
      await sleep(100);
      expect(seen.map((e) => [e.seq, textOf(e)])).toEqual([
        [1, 'kept'],
        [2, 'also'],
      ]);
      off();
    });

    it('two instances subscribed on their own connections both receive every event of one publisher, in order', async () => {
      const { conversation } = await userAndConversation(h);
      const sender = buses.open(h);
      const first: BusEvent[] = [];
      const second: BusEvent[] = [];
      const offs = [
        await elsewhere().subscribe(conversation.id, (e) => first.push(e)),
        await buses.open(h).subscribe(conversation.id, (e) => second.push(e)),
      ];
      // A turn's shape: live text, its stored copy, now and then a larger stored event.
      const expected: string[] = [];
      for (let i = 0; i < 40; i++) {
        sender.live(conversation.id, null, 'message.delta', delta('m8', i, `live-${i}`));
        expected.push(`live-${i}`);
        if (i % 4 === 3) {
          await sender.persist(conversation.id, null, 'message.delta', delta('m8', i, `stored-${i}`));
          expected.push(`stored-${i}`);
        }
      }
      await waitFor(() => first.length === expected.length && second.length === expected.length);
      expect(first.map(textOf)).toEqual(expected);
      expect(second.map(textOf)).toEqual(expected);
      expect(first.flatMap((e) => (e.seq === undefined ? [] : [e.seq]))).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
      offs.forEach((off) => off());
    });

    it.skipIf(db === 'pglite' && kind === 'postgres')(
      'a receiver whose connection is cut listens again and says it may have missed events',
      async () => {
        const { conversation } = await userAndConversation(h);
        const receiver = elsewhere();
        const seen: BusEvent[] = [];
        let resumed = 0;
        const off = await receiver.subscribe(
          conversation.id,
          (e) => seen.push(e),
          () => resumed++,
        );
        await cutListeningConnections(receiver.name);
        const sender = buses.open(h);
        const start = Date.now();
        while (seen.length === 0 && Date.now() - start < 8000) {
          await sender.persist(conversation.id, null, 'message.delta', delta('probe', 0, 'probe'));
          await sleep(250);
        }
        expect(seen.length).toBeGreaterThan(0);
        expect(resumed).toBe(1);
        off();
      },
    );

    it.skipIf(db === 'pglite' && kind === 'postgres')(
      'an event stream loses no event while its bus is cut off: it reads what it missed from the log once the bus is back',
      async () => {
        const { conversation, run, lastSeq } = await conversationWithRun(h, 'running');
        const sender = buses.open(h);
        // Redis: the receiver reaches it through a proxy that stays cut while the run goes on and ends.
        const proxy = kind === 'redis' ? await startTcpProxy(hostPortOf(TEST_REDIS_URL)) : undefined;
        const receiver = proxy ? buses.open(other ?? h, { url: `redis://127.0.0.1:${proxy.port}` }) : elsewhere();
        try {
          // No ping within the test: only the bus's resumption can tell the stream what it missed.
          const stream = await openEventStream({
            db: (other ?? h).db,
            bus: receiver,
            conversationId: conversation.id,
            afterSeq: 0,
            pingMs: 60_000,
          });
          const reader = sseReader(stream!);
          const frames: Frame[] = [];
          const until = async (cond: () => boolean) => {
            while (!cond()) {
              const got = await reader.next(5000);
              if (got === 'end' || got === 'timeout') throw new Error(`stream ${got} before the condition held`);
              frames.push(...got);
            }
          };
          await until(() => frames.some((f) => f.id === lastSeq));
          await sender.persist(conversation.id, run.id, 'message.delta', delta('m9', 0, 'before'));
          await until(() => frames.some((f) => f.data.text === 'before'));

          if (proxy) proxy.cut();
          else await cutListeningConnections('');
          for (let i = 1; i <= 4; i++) await sender.persist(conversation.id, run.id, 'message.delta', delta('m9', i, `during-${i}`));
          await sender.persist(conversation.id, run.id, 'run.completed', samplePayload('run.completed'));
          if (proxy) setTimeout(() => proxy.restore(), 300);

          const rest = await reader.rest(8000);
          frames.push(...rest.frames);
          expect(rest.ended).toBe(true);
          const ids = frames.flatMap((f) => (f.id === undefined ? [] : [f.id]));
          // Every stored event once, in order, the run's end last.
          expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
          expect(frames.filter((f) => f.id !== undefined && f.event === 'message.delta').map((f) => f.data.text)).toEqual([
            'before',
            'during-1',
            'during-2',
            'during-3',
            'during-4',
          ]);
          expect(frames.at(-1)!.event).toBe('run.completed');
        } finally {
          await proxy?.close();
        }
      },
    );

    /** Cuts the connection a receiver listens on: its Redis subscriber, or every LISTEN connection to the test database. */
    async function cutListeningConnections(busName: string) {
      if (kind === 'redis') {
        const admin = createClient({ url: TEST_REDIS_URL });
        await admin.connect();
        try {
          const list = await admin.sendCommand<string>(['CLIENT', 'LIST', 'TYPE', 'pubsub']);
          const ids = list
            .split('\n')
            .filter((line) => line.includes(` name=${busName}-subscribe `))
            .map((line) => /\bid=(\d+)/.exec(line)![1]!);
          expect(ids).toHaveLength(1);
          await admin.sendCommand(['CLIENT', 'KILL', 'ID', ids[0]!]);
        } finally {
          await admin.close();
        }
        return;
      }
      // As a server restart or a proxy would; waits until they are gone.
      await h.db.execute(
        sql`select pg_terminate_backend(pid, 5000) from pg_stat_activity
            where datname = current_database() and query like 'LISTEN%' and pid <> pg_backend_pid()`,
      );
    }
  });
}

function hostPortOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379) };
}
