import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getConversation, renameConversation } from '@/db/queries/conversations';
import { listEventsAfter } from '@/db/queries/events';
import { listMessages } from '@/db/queries/messages';
import { getRun, updateRunIfVersion } from '@/db/queries/runs';
import { createModelClient } from '@/lib/model/client';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, recordEvents, userAndConversation } from '@/test/engine-harness';

import { activeRunOf, cancelRun, resumeLapsedRuns, RunConflict, startRun } from './engine';
import { toMessageParams } from './history';

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`run engine (text turns) on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it("titles a new conversation: its first line at once, then the model's short title, never over a rename", async () => {
      const deps = { ...engineDeps(h), titles: true };
      const { user, conversation } = await userAndConversation(h);
      const start = (c: string, text: string) => startRun(deps, { conversationId: c, userId: user.id, sessionId: null, text });
      await start(conversation.id, '## Plans for the weekend: hiking, a museum, and dinner with friends!');
      await deps.idle();
      expect((await getConversation(h.db, user.id, conversation.id))!.title).toBe('Plans for the weekend hiking a');

      // Renamed before the model answered: the person's title stays.
      const other = await userAndConversation(h);
      const slow = { ...deps, schedule: (work: () => Promise<void>) => void setTimeout(() => deps.schedule(work), 50) };
      await startRun(slow, {
        conversationId: other.conversation.id,
        userId: other.user.id,
        sessionId: null,
        text: 'Something else entirely',
      });
      await renameConversation(h.db, other.user.id, other.conversation.id, 'Mine');
      await new Promise((r) => setTimeout(r, 100));
      await deps.idle();
      expect((await getConversation(h.db, other.user.id, other.conversation.id))!.title).toBe('Mine');
    });

    it('streams an answer, stores it, and logs the events in order', async () => {
      // Words 15 ms apart, as a real model streams them: each goes out live before it is stored.
      const deps = engineDeps(h, { client: createModelClient({ DEMO_MODEL_DELAY_MS: '15' }) });
      const { user, conversation } = await userAndConversation(h);
      const { seen, off } = await recordEvents(deps.bus, conversation.id);
      const { run, afterSeq } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'Hello there, demo',
      });
      await deps.idle();
      await waitFor(() => seen.some((e) => e.type === 'run.completed'));
      off();

      const done = await getRun(h.db, run.id);
      expect(done).toMatchObject({ status: 'completed', stopReason: 'end_turn', leaseOwner: null });
      expect(done!.usage!.outputTokens).toBeGreaterThan(0);

      const msgs = await listMessages(h.db, conversation.id);
      expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant']);
      const answer = (msgs[1]!.content as { type: string; text: string }[])[0]!.text;
      expect(answer).toContain('offline demo model');
      expect(answer).toContain('Hello there, demo');

      const stored = await listEventsAfter(h.db, conversation.id, afterSeq);
      const types = stored.map((e) => e.type);
      expect(types[0]).toBe('run.started');
      expect(types.at(-2)).toBe('message.completed');
      expect(types.at(-1)).toBe('run.completed');
      // Stored deltas, joined by offset, rebuild the answer exactly.
      const deltas = stored.filter((e) => e.type === 'message.delta').map((e) => e.data as { offset: number; text: string });
      expect(deltas.length).toBeGreaterThan(0);
      let text = '';
      for (const d of deltas) {
        expect(d.offset).toBe(text.length);
        text += d.text;
      }
      expect(text).toBe(answer);
      // Live deltas (no seq) went out as the words came, more of them than the stored ones; live and
      // stored together, joined by offset, give the answer once.
      const live = seen.filter((e) => e.type === 'message.delta' && e.seq === undefined);
      expect(live.length).toBeGreaterThan(deltas.length);
      const followed = new Map<number, string>();
      for (const e of seen.filter((x) => x.type === 'message.delta')) {
        const d = e.data as { offset: number; text: string };
        for (let i = 0; i < d.text.length; i++) followed.set(d.offset + i, d.text[i]!);
      }
      expect(
        [...followed.keys()]
          .sort((a, b) => a - b)
          .map((k) => followed.get(k))
          .join(''),
      ).toBe(answer);
      expect((await getConversation(h.db, user.id, conversation.id))!.title).toBe('Hello there, demo');
    });

    it('refuses a second turn while one is active', async () => {
      const deps = engineDeps(h, { schedule: () => {} });
      const { user, conversation } = await userAndConversation(h);
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'one' });
      await expect(
        startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'two' }),
      ).rejects.toBeInstanceOf(RunConflict);
      expect((await listMessages(h.db, conversation.id)).length).toBe(1);
    });

    it('stops mid-answer on cancel and keeps what was written', async () => {
      const deps = engineDeps(h, { client: createModelClient({ DEMO_MODEL_DELAY_MS: '20' }) });
      const { user, conversation } = await userAndConversation(h);
      const { seen, off } = await recordEvents(deps.bus, conversation.id);
      const { run } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'word '.repeat(200),
      });
      await waitFor(() => seen.filter((e) => e.type === 'message.delta').length > 5);
      await cancelRun(deps, conversation.id);
      await deps.idle();
      await waitFor(() => seen.some((e) => e.type === 'run.cancelled'));
      off();
      const done = await getRun(h.db, run.id);
      expect(done).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
      const msgs = await listMessages(h.db, conversation.id);
      expect(msgs.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'cancelled' });
      expect(seen.some((e) => e.type === 'run.cancelled')).toBe(true);
    });

    it('fails a run whose model breaks mid-stream, with a readable error, and stays usable', async () => {
      const deps = engineDeps(h);
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'please [demo:fail-midstream]',
      });
      await deps.idle();
      const failed = await getRun(h.db, run.id);
      expect(failed!.status).toBe('failed');
      expect(failed!.error!.code).toBe('model_stream_broken');
      expect(failed!.error!.message).toMatch(/cut off/);
      const events = await listEventsAfter(h.db, conversation.id, 0);
      expect(events.at(-1)).toMatchObject({ type: 'run.failed' });

      const next = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'again' });
      await deps.idle();
      expect((await getRun(h.db, next.run.id))!.status).toBe('completed');
      // The stored history is a valid Messages API history: roles alternate.
      const history = toMessageParams(await listMessages(h.db, conversation.id));
      history.forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant'));
    });

    it('answers a tool the model names but nobody offered with an error result, keeping the history valid', async () => {
      const deps = engineDeps(h);
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'use notes__search please',
      });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      const msgs = await listMessages(h.db, conversation.id);
      expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      const toolUse = (msgs[1]!.content as { type: string; id: string }[]).find((b) => b.type === 'tool_use')!;
      const result = (msgs[2]!.content as { type: string; tool_use_id: string; is_error: boolean }[])[0]!;
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: toolUse.id, is_error: true });
    });

    it('lets another instance take over a run whose lease lapsed, and not before', async () => {
      const dead = engineDeps(h, { schedule: () => {}, instanceId: 'dead' });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(dead, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hi' });
      const rescuer = engineDeps(h, { instanceId: 'rescuer' });
      expect(await resumeLapsedRuns(rescuer, conversation.id)).toBe(0);
      const current = (await getRun(h.db, run.id))!;
      await updateRunIfVersion(h.db, run.id, current.version, { leaseExpiresAt: new Date(Date.now() - 1000) });
      expect(await resumeLapsedRuns(rescuer, conversation.id)).toBe(1);
      await rescuer.idle();
      const done = (await getRun(h.db, run.id))!;
      expect(done.status).toBe('completed');
      // The dead instance can no longer write anything.
      expect(await updateRunIfVersion(h.db, run.id, done.version, { step: 99 }, 'dead')).toBeNull();
    });

    it('reading the active run (page, JSON, events, pings) takes over a lapsed one, once, and leaves a live lease alone', async () => {
      const dead = engineDeps(h, { schedule: () => {}, instanceId: 'dead' });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(dead, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hi' });
      const a = engineDeps(h, { instanceId: 'reader-a' });
      const b = engineDeps(h, { instanceId: 'reader-b' });
      expect((await activeRunOf(a, conversation.id))!.leaseOwner).toBe('dead');
      const current = (await getRun(h.db, run.id))!;
      await updateRunIfVersion(h.db, run.id, current.version, { leaseExpiresAt: new Date(Date.now() - 1000) });
      // Two readers at once: both see the run, exactly one of them drives it.
      const [ra, rb] = await Promise.all([activeRunOf(a, conversation.id), activeRunOf(b, conversation.id)]);
      expect([ra!.id, rb!.id]).toEqual([run.id, run.id]);
      const owners = new Set([ra!.leaseOwner, rb!.leaseOwner]);
      expect(owners.size).toBe(1);
      expect(['reader-a', 'reader-b']).toContain([...owners][0]);
      await Promise.all([a.idle(), b.idle()]);
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      expect((await listMessages(h.db, conversation.id)).map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(await activeRunOf(a, conversation.id)).toBeNull();
    });
  });
}

async function waitFor(cond: () => boolean, timeoutMs = 5000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
