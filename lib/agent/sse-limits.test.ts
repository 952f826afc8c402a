// The security review's findings on event streams, one test each: every one fails on the code
// before the fix (streams had no caps, replay read the whole log up front, and a stream on a
// paused run stayed open for as long as the tab did).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { appendEvent } from '@/db/queries/events';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { conversationWithRun, engineDeps, samplePayload, userAndConversation } from '@/test/engine-harness';
import { sseReader, type Frame } from '@/test/sse-reader';

import { openEventStream, REPLAY_PAGE_SIZE } from './sse';
import { createStreamRegistry, TOO_MANY_FOR_USER, TOO_MANY_IN_CONVERSATION } from './sse-streams';

// Every row the event log hands out, so a test can see how much a stream has read ahead.
const fetched = vi.hoisted(() => ({ rows: 0 }));
vi.mock('@/db/queries/events', async (importOriginal) => {
  const real = await importOriginal<typeof import('@/db/queries/events')>();
  return {
    ...real,
    listEventsAfter: async (...args: Parameters<typeof real.listEventsAfter>) => {
      const rows = await real.listEventsAfter(...args);
      fetched.rows += rows.length;
      return rows;
    },
  };
});

const lastOf = (frames: Frame[]) => frames[frames.length - 1];

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`event stream limits on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('finding "no cap on open streams": the oldest stream of a conversation over its cap is closed with stream.closed', async () => {
      const deps = engineDeps(h);
      const registry = createStreamRegistry();
      const { user, conversation, lastSeq } = await conversationWithRun(h);
      const open = async () =>
        sseReader(
          (await openEventStream({
            db: h.db,
            bus: deps.bus,
            conversationId: conversation.id,
            afterSeq: lastSeq,
            register: (close) =>
              registry.admit({ userId: user.id, conversationId: conversation.id, caps: { perUser: 10, perConversation: 2 }, close }),
          }))!,
        );
      const [first, second, third] = [await open(), await open(), await open()];

      const closed = await first.rest();
      expect(closed.ended).toBe(true);
      expect(lastOf(closed.frames)).toEqual({ id: undefined, event: 'stream.closed', data: TOO_MANY_IN_CONVERSATION });
      expect(TOO_MANY_IN_CONVERSATION.reason).toBe('too_many_streams');
      // The two newest are still open and counted.
      expect(registry.count(user.id, conversation.id)).toBe(2);
      for (const s of [second, third]) expect(await s.next(500)).not.toBe('end');
      await Promise.all([second.cancel(), third.cancel()]);
      await vi.waitFor(() => expect(registry.count(user.id)).toBe(0));
    });

    it('finding "no cap on open streams": over the per-user cap, the oldest stream in any conversation is closed', async () => {
      const deps = engineDeps(h);
      const registry = createStreamRegistry();
      // Two paused conversations, both counted for the same user.
      const a = await conversationWithRun(h);
      const b = await conversationWithRun(h);
      const open = async (c: { conversation: { id: string }; lastSeq: number }) =>
        sseReader(
          (await openEventStream({
            db: h.db,
            bus: deps.bus,
            conversationId: c.conversation.id,
            afterSeq: c.lastSeq,
            register: (close) =>
              registry.admit({ userId: a.user.id, conversationId: c.conversation.id, caps: { perUser: 2, perConversation: 5 }, close }),
          }))!,
        );
      const oldest = await open(a);
      const middle = await open(b);
      const newest = await open(a);
      const closed = await oldest.rest();
      expect(closed.ended).toBe(true);
      expect(lastOf(closed.frames)?.data).toEqual(TOO_MANY_FOR_USER);
      expect(registry.count(a.user.id)).toBe(2);
      await Promise.all([middle.cancel(), newest.cancel()]);
    });

    it('finding "?after=0 queues the whole log at once": a long log is replayed a page per read, at most a page ahead', async () => {
      const deps = engineDeps(h);
      const { conversation } = await userAndConversation(h);
      const total = 500;
      await h.db.transaction(async (tx) => {
        for (let i = 1; i <= total; i++) {
          await appendEvent(tx, {
            conversationId: conversation.id,
            runId: null,
            type: 'message.delta',
            data: { ...samplePayload('message.delta'), offset: i },
          });
        }
      });
      fetched.rows = 0;
      const reader = sseReader((await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: 0 }))!);
      const first = await reader.next();
      // Give an eager producer every chance to run ahead of the reader.
      await new Promise((r) => setTimeout(r, 100));
      expect(first).not.toBe('end');
      let delivered = (first as Frame[]).length;
      expect(delivered).toBeGreaterThan(0);
      expect(fetched.rows).toBeLessThan(total / 2);

      let maxAhead = fetched.rows - delivered;
      const ids: number[] = (first as Frame[]).map((f) => f.id!);
      for (;;) {
        const got = await reader.next();
        if (got === 'end') break;
        expect(got).not.toBe('timeout');
        delivered += (got as Frame[]).length;
        ids.push(...(got as Frame[]).map((f) => f.id!));
        maxAhead = Math.max(maxAhead, fetched.rows - delivered);
      }
      expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      // What was read but not yet sent never exceeded one page.
      expect(maxAhead).toBeLessThanOrEqual(REPLAY_PAGE_SIZE);
    });

    it('finding "idle tabs hold listeners forever": a stream on a paused run closes as idle, and is counted out', async () => {
      const deps = engineDeps(h);
      const registry = createStreamRegistry();
      const { user, conversation, lastSeq } = await conversationWithRun(h);
      const reader = sseReader(
        (await openEventStream({
          db: h.db,
          bus: deps.bus,
          conversationId: conversation.id,
          afterSeq: lastSeq,
          pingMs: 50,
          pausedIdleMs: 300,
          register: (close) =>
            registry.admit({ userId: user.id, conversationId: conversation.id, caps: { perUser: 5, perConversation: 5 }, close }),
        }))!,
      );
      const { frames, ended } = await reader.rest(2000);
      expect(ended).toBe(true);
      expect(frames.filter((f) => f.event === 'ping').length).toBeGreaterThanOrEqual(2);
      expect(lastOf(frames)).toEqual({ id: undefined, event: 'stream.closed', data: expect.objectContaining({ reason: 'idle' }) });
      expect(registry.count(user.id)).toBe(0);
    });
  });
}
