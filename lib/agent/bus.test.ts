import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPostgres, type DbHandle } from '@/db/connection';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';

import { createEventBus } from './bus';
import type { BusEvent } from './events';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean, ms = 5000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`event bus on ${kind}`, () => {
    let h: DbHandle & { url?: string };
    let other: DbHandle | undefined;
    beforeAll(async () => {
      h = await openTestDb(kind);
      // With Postgres, a second connection pool stands in for a second instance.
      if (h.url) other = await openPostgres(h.url, { max: 2 });
    });
    afterAll(async () => {
      await other?.close();
      await h?.close();
    });

    it('delivers stored and live events to subscribers of that conversation only, in order', async () => {
      const { conversation } = await userAndConversation(h);
      const { conversation: elsewhere } = await userAndConversation(h);
      const sender = createEventBus(h);
      const receiver = createEventBus(other ?? h);
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      const foreign: BusEvent[] = [];
      const offForeign = await receiver.subscribe(elsewhere.id, (e) => foreign.push(e));

      const delta = (offset: number, text: string) => ({ messageId: 'm1', blockIndex: 0, offset, text });
      for (let i = 0; i < 5; i++) await sender.persist(conversation.id, null, 'message.delta', delta(i, String(i)));
      sender.live(conversation.id, null, 'message.delta', delta(5, 'live'));
      // Bigger than a NOTIFY payload may be: it travels as a pointer and is read back from the log.
      await sender.persist(conversation.id, null, 'message.delta', delta(6, 'x'.repeat(20_000)));
      await waitFor(() => seen.length === 7);
      expect(seen.slice(0, 5).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(seen[5]!.seq).toBeUndefined();
      expect(seen[5]!.data).toEqual(delta(5, 'live'));
      expect(seen[6]).toMatchObject({ seq: 6, type: 'message.delta', data: delta(6, 'x'.repeat(20_000)) });
      expect(foreign).toEqual([]);
      off();
      offForeign();
    });

    it('announces the events of one statement in one notification, in order, a too-large one as a pointer in its place', async () => {
      const { conversation } = await userAndConversation(h);
      const notified: string[] = [];
      const counting = { ...h, notify: async (channel: string, payload: string) => (notified.push(payload), h.notify(channel, payload)) };
      const sender = createEventBus(counting);
      const receiver = createEventBus(other ?? h);
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      const stored = await sender.store(counting.db, conversation.id, null, [
        { type: 'message.delta', data: { messageId: 'm2', blockIndex: 0, offset: 0, text: 'a' } },
        { type: 'message.delta', data: { messageId: 'm2', blockIndex: 0, offset: 1, text: 'y'.repeat(20_000) } },
        { type: 'message.delta', data: { messageId: 'm2', blockIndex: 0, offset: 20_001, text: 'b' } },
      ]);
      expect(stored.map((r) => r.seq)).toEqual([1, 2, 3]);
      await waitFor(() => seen.length === 3);
      // Stored and announced by one statement: no NOTIFY of its own.
      expect(notified).toEqual([]);
      expect(seen.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect((seen[1]!.data as { text: string }).text).toHaveLength(20_000);
      off();
    });

    it('gathers the live deltas of every conversation sent together into as few notifications as fit, each in order', async () => {
      const convs = await Promise.all([1, 2, 3].map(async () => (await userAndConversation(h)).conversation.id));
      const notified: string[] = [];
      const counting = { ...h, notify: async (channel: string, payload: string) => (notified.push(payload), h.notify(channel, payload)) };
      const sender = createEventBus(counting);
      const receiver = createEventBus(other ?? h);
      const seen = new Map<string, string[]>(convs.map((c) => [c, []]));
      const offs = await Promise.all(convs.map((c) => receiver.subscribe(c, (e) => seen.get(c)!.push((e.data as { text: string }).text))));
      const delta = (offset: number, text: string) => ({ messageId: 'm3', blockIndex: 0, offset, text });
      // 30 small deltas, ten per conversation, interleaved as streams interleave: one notification.
      for (let i = 0; i < 10; i++) for (const c of convs) sender.live(c, null, 'message.delta', delta(i, `${c.slice(0, 4)}-${i}`));
      await waitFor(() => [...seen.values()].every((texts) => texts.length === 10));
      expect(notified).toHaveLength(1);
      for (const c of convs) expect(seen.get(c)).toEqual(Array.from({ length: 10 }, (_, i) => `${c.slice(0, 4)}-${i}`));

      // Larger ones split across notifications under the payload limit, still in order.
      notified.length = 0;
      for (let i = 0; i < 12; i++) sender.live(convs[0]!, null, 'message.delta', delta(100 + i, `${i}:${'z'.repeat(1_500)}`));
      // A stored event waits for the live ones sent before it.
      await sender.persist(convs[0]!, null, 'message.delta', delta(200, 'stored'));
      await waitFor(() => seen.get(convs[0]!)!.length === 23);
      expect(notified.length).toBeGreaterThanOrEqual(3);
      expect(notified.every((p) => Buffer.byteLength(p) < 8000)).toBe(true);
      expect(
        seen
          .get(convs[0]!)!
          .slice(10)
          .map((t) => t.split(':')[0]),
      ).toEqual([...Array.from({ length: 12 }, (_, i) => String(i)), 'stored']);
      offs.forEach((off) => off());
    });

    it('a stored event waits for the live deltas sent before it, not for those other conversations keep sending', async () => {
      const { conversation: streaming } = await userAndConversation(h);
      const { conversation: storing } = await userAndConversation(h);
      // A notification takes 2 ms: the queue of a conversation streaming meanwhile is never empty.
      const slow = { ...h, notify: async (channel: string, payload: string) => (await sleep(2), h.notify(channel, payload)) };
      const sender = createEventBus(slow);
      let offset = 0;
      const delta = () => ({ messageId: 'm4', blockIndex: 0, offset: offset++, text: 'w' });
      const pump = setInterval(() => {
        for (let i = 0; i < 5; i++) sender.live(streaming.id, null, 'message.delta', delta());
      }, 1);
      try {
        await sleep(50);
        // The pump never stops while this waits: a store that waited for the bus's queue to run empty
        // would never resolve. The deadline only turns that hang into a clear failure.
        const stored = sender.persist(storing.id, null, 'message.delta', { messageId: 'm5', blockIndex: 0, offset: 0, text: 'stored' });
        expect(await Promise.race([stored.then(() => 'stored'), sleep(10_000).then(() => 'still waiting')])).toBe('stored');
      } finally {
        clearInterval(pump);
      }
      // What was queued is all sent before a store on the streaming conversation.
      await sender.persist(streaming.id, null, 'message.delta', delta());
    });

    it('announces nothing when the transaction that stored the events rolls back', async () => {
      const { conversation } = await userAndConversation(h);
      const sender = createEventBus(h);
      const receiver = createEventBus(other ?? h);
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      await expect(
        h.db.transaction(async (tx) => {
          await sender.store(tx, conversation.id, null, [
            { type: 'run.retrying', data: { attempt: 1, delayMs: 1, status: 529, message: 'busy' } },
          ]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await sender.persist(conversation.id, null, 'message.delta', { messageId: 'm3', blockIndex: 0, offset: 0, text: 'after' });
      await waitFor(() => seen.length === 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen.map((e) => e.type)).toEqual(['message.delta']);
      expect(seen[0]!.seq).toBe(1);
      off();
    });

    it.skipIf(kind !== 'postgres')('listens again after its LISTEN connection is cut', async () => {
      const { conversation } = await userAndConversation(h);
      const receiver = createEventBus(other!);
      const seen: BusEvent[] = [];
      const off = await receiver.subscribe(conversation.id, (e) => seen.push(e));
      const { sql } = await import('drizzle-orm');
      // Cut every LISTEN connection to this database, as a server restart or a proxy would.
      await h.db.execute(
        sql`select pg_terminate_backend(pid) from pg_stat_activity
            where datname = current_database() and query like 'LISTEN%' and pid <> pg_backend_pid()`,
      );
      const sender = createEventBus(h);
      const start = Date.now();
      while (seen.length === 0 && Date.now() - start < 8000) {
        await sender.persist(conversation.id, null, 'message.delta', { messageId: 'probe', blockIndex: 0, offset: 0, text: 'probe' });
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(seen.length).toBeGreaterThan(0);
      off();
    });
  });
}
