import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { appendEvent } from '@/db/queries/events';
import { listMessages } from '@/db/queries/messages';
import { updateRunIfVersion } from '@/db/queries/runs';
import type { RunEventType } from '@/lib/agent/events';
import { createModelClient } from '@/lib/model/client';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { conversationWithRun, engineDeps, samplePayload, userAndConversation } from '@/test/engine-harness';
import { readFrames, sseReader } from '@/test/sse-reader';

import { startRun } from './engine';
import { encodeSseEvent, encodeStreamEvent, openEventStream, streamTimingFrom } from './sse';

describe('encodeSseEvent', () => {
  it('frames a stored event with id, event name and one JSON data line', () => {
    const frame = encodeSseEvent({ conversationId: 'c', runId: 'r', type: 'message.delta', seq: 7, data: { text: 'a\nb', offset: 3 } });
    expect(frame).toBe('id: 7\nevent: message.delta\ndata: {"text":"a\\nb","offset":3,"seq":7,"runId":"r"}\n\n');
  });

  it('frames ping and stream.closed as named events without an id', () => {
    expect(encodeStreamEvent('ping', {})).toBe('event: ping\ndata: {}\n\n');
    expect(encodeStreamEvent('stream.closed', { reason: 'idle', message: 'm' })).toBe(
      'event: stream.closed\ndata: {"reason":"idle","message":"m"}\n\n',
    );
  });

  it('reads its timing from the environment, and refuses nonsense', () => {
    expect(streamTimingFrom({})).toEqual({ pingMs: 15_000, pausedIdleMs: 300_000 });
    expect(streamTimingFrom({ SSE_PING_MS: '500', SSE_PAUSED_IDLE_MS: '2000' })).toEqual({ pingMs: 500, pausedIdleMs: 2000 });
    expect(() => streamTimingFrom({ SSE_PING_MS: '0' })).toThrow(/SSE_PING_MS must be a positive integer/);
    expect(() => streamTimingFrom({ SSE_PAUSED_IDLE_MS: 'soon' })).toThrow(/SSE_PAUSED_IDLE_MS/);
  });

  it('leaves out the id of a live-only event so Last-Event-ID stays on a stored seq', () => {
    const frame = encodeSseEvent({ conversationId: 'c', runId: 'r', type: 'message.delta', data: { text: 'x' } });
    expect(frame.startsWith('event: message.delta\n')).toBe(true);
    expect(frame).toContain('"seq":null');
  });
});

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`event stream on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('is empty (null → 204) with nothing to replay and no active run', async () => {
      const deps = engineDeps(h);
      const { conversation } = await userAndConversation(h);
      expect(await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: 0 })).toBeNull();
    });

    it('follows a live run to its end, then replays the same turn from any seq', async () => {
      const deps = engineDeps(h, { client: createModelClient({ DEMO_MODEL_DELAY_MS: '5' }) });
      const { user, conversation } = await userAndConversation(h);
      const { afterSeq } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'tell me something',
      });
      const live = await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq });
      const frames = await readFrames(live!);
      await deps.idle();
      expect(frames[0]!.event).toBe('run.started');
      expect(frames.at(-1)!.event).toBe('run.completed');
      const ids = frames.filter((f) => f.id !== undefined).map((f) => f.id!);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);

      // Rebuild the text from deltas as the browser does (chat-state applyDelta): repeats are
      // dropped by offset, and a delta past a gap waits for the stored copy that fills it.
      const rebuild = (fs: typeof frames) => {
        let text = '';
        for (const f of fs.filter((f) => f.event === 'message.delta')) {
          const d = f.data as { text: string; offset: number };
          if (d.offset > text.length || d.offset + d.text.length <= text.length) continue;
          text += d.text.slice(text.length - d.offset);
        }
        return text;
      };
      const stored = (await listMessages(h.db, conversation.id))[1]!.content as { text: string }[];
      expect(rebuild(frames)).toBe(stored[0]!.text);

      // Reconnecting from the middle replays exactly what came after.
      const mid = ids[Math.floor(ids.length / 2)]!;
      const replay = await readFrames(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: mid }))!,
      );
      expect(replay.map((f) => f.id)).toEqual(ids.filter((i) => i > mid));
      expect(replay.at(-1)!.event).toBe('run.completed');
    });

    it('sends a named ping the page can see, at once when there is nothing to replay and then every interval', async () => {
      const deps = engineDeps(h);
      const { conversation, lastSeq } = await conversationWithRun(h, 'running');
      const reader = sseReader(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: lastSeq, pingMs: 40 }))!,
      );
      expect(await reader.next(500)).toEqual([{ id: undefined, event: 'ping', data: {} }]);
      expect(await reader.next(500)).toEqual([{ id: undefined, event: 'ping', data: {} }]);
      await reader.cancel();
    });

    it('a run that ends just as a ping looks still has its end sent, not a stream closed without it', async () => {
      const deps = engineDeps(h);
      const { conversation, run, lastSeq } = await conversationWithRun(h, 'running');
      let reads = 0;
      // At the ping the run has just ended: its end is stored (with no notification on the bus)
      // by the time the run is found no longer active.
      const activeRun = async () => {
        if (++reads === 1) return run;
        await appendEvent(h.db, {
          conversationId: conversation.id,
          runId: run.id,
          type: 'run.completed',
          data: samplePayload('run.completed'),
        });
        return null;
      };
      const frames = await readFrames(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: lastSeq, pingMs: 20, activeRun }))!,
      );
      expect(frames.map((f) => f.event)).toEqual(['ping', 'run.completed']);
    });

    it('a running run is never closed as idle, however quiet', async () => {
      const deps = engineDeps(h);
      const { conversation, lastSeq } = await conversationWithRun(h, 'running');
      const reader = sseReader(
        (await openEventStream({
          db: h.db,
          bus: deps.bus,
          conversationId: conversation.id,
          afterSeq: lastSeq,
          pingMs: 20,
          pausedIdleMs: 40,
        }))!,
      );
      const seen: string[] = [];
      const until = Date.now() + 400;
      while (Date.now() < until) {
        const got = await reader.next(200);
        expect(got).not.toBe('end');
        if (Array.isArray(got)) seen.push(...got.map((f) => f.event));
      }
      expect(seen.length).toBeGreaterThan(3);
      expect(new Set(seen)).toEqual(new Set(['ping']));
      await reader.cancel();
    });

    it('ends at a replayed pause only if the run is paused there now', async () => {
      const deps = engineDeps(h);
      const { conversation, run } = await conversationWithRun(h, 'running');
      const log = (type: RunEventType) =>
        appendEvent(h.db, { conversationId: conversation.id, runId: run.id, type, data: samplePayload(type) });
      await log('run.awaiting_approval'); // decided, and the run went on
      await log('tool_call.started');
      // Running again: the old pause is history, the stream stays open after it.
      const following = sseReader(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: 0, pingMs: 40 }))!,
      );
      const first = await following.next();
      expect(Array.isArray(first) && first.map((f) => f.event)).toEqual(['run.started', 'run.awaiting_approval', 'tool_call.started']);
      expect(await following.next(1000)).toEqual([expect.objectContaining({ event: 'ping' })]);
      await following.cancel();

      // Paused again: the stream ends at the newest pause, after everything before it.
      const current = await log('run.awaiting_approval');
      await updateRunIfVersion(h.db, run.id, run.version, { status: 'awaiting_approval' });
      const frames = await readFrames((await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: 0 }))!);
      expect(frames.map((f) => f.id)).toEqual([1, 2, 3, current.seq]);
    });

    it('reads live events it fell a page behind on from the log, in order and once', async () => {
      const deps = engineDeps(h);
      const { conversation, run, lastSeq } = await conversationWithRun(h, 'running');
      const reader = sseReader(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: lastSeq, pageSize: 5 }))!,
      );
      expect(await reader.next()).toEqual([expect.objectContaining({ event: 'ping' })]);
      // Thirty events while the reader reads nothing: six pages' worth.
      for (let i = 0; i < 30; i++) await deps.bus.persist(conversation.id, run.id, 'tool_call.progress', { toolCallId: 'c1', progress: i });
      const ids: number[] = [];
      while (ids.length < 30) {
        const got = await reader.next();
        expect(Array.isArray(got)).toBe(true);
        ids.push(...(got as { id?: number }[]).map((f) => f.id!));
      }
      expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => lastSeq + 1 + i));
      await reader.cancel();
    });

    it('writes the first delta after a quiet spell at once, and gathers a stream of them into few writes', async () => {
      // A window long enough that a loaded machine's scheduling cannot blur "at once" and "held".
      const GATHER_MS = 1000;
      const deps = engineDeps(h);
      const { conversation, run, lastSeq } = await conversationWithRun(h, 'running');
      const reader = sseReader(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: lastSeq, gatherMs: GATHER_MS }))!,
      );
      expect(await reader.next()).toEqual([expect.objectContaining({ event: 'ping' })]);
      await new Promise((r) => setTimeout(r, GATHER_MS + 100)); // quiet for longer than the gathering window
      const delta = (offset: number) => ({ messageId: 'm1', blockIndex: 0, offset, text: String(offset % 10) });
      const t0 = performance.now();
      deps.bus.live(conversation.id, run.id, 'message.delta', delta(0));
      expect(await reader.next()).toEqual([expect.objectContaining({ event: 'message.delta' })]);
      expect(performance.now() - t0).toBeLessThan(GATHER_MS); // not held for the window
      // Twelve more, 5 ms apart (60 ms in all, well inside one window even on a loaded machine), read as
      // they come: a write per window, not one per delta.
      const writes: number[] = [];
      const reading = (async () => {
        while (writes.reduce((a, b) => a + b, 0) < 12) {
          const got = await reader.next();
          expect(Array.isArray(got)).toBe(true);
          writes.push((got as unknown[]).length);
        }
      })();
      for (let i = 1; i <= 12; i++) {
        deps.bus.live(conversation.id, run.id, 'message.delta', delta(i));
        await new Promise((r) => setTimeout(r, 5));
      }
      await reading;
      expect(writes.length).toBeLessThanOrEqual(3);
      await reader.cancel();
    });

    it('finds an event whose notification was lost at the next ping', async () => {
      const deps = engineDeps(h);
      const { conversation, run, lastSeq } = await conversationWithRun(h, 'running');
      const reader = sseReader(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: lastSeq, pingMs: 40 }))!,
      );
      expect(await reader.next()).toEqual([expect.objectContaining({ event: 'ping' })]);
      // Stored, never broadcast.
      const silent = await appendEvent(h.db, {
        conversationId: conversation.id,
        runId: run.id,
        type: 'run.completed',
        data: samplePayload('run.completed'),
      });
      const { frames, ended } = await reader.rest(1000);
      expect(ended).toBe(true);
      expect(frames.filter((f) => f.id !== undefined).map((f) => [f.id, f.event])).toEqual([[silent.seq, 'run.completed']]);
    });
  });
}
