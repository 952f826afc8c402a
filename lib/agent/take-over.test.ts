import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { applyEvent, type ChatEvent, type ChatState } from '@/app/_components/chat/chat-state';
import type { DbHandle } from '@/db/connection';
import { appendEvent, listEventsAfter, type EventRow } from '@/db/queries/events';
import { appendMessage, listMessages } from '@/db/queries/messages';
import { getRun, updateRunIfVersion } from '@/db/queries/runs';
import { listAbandonedStreams } from '@/db/queries/streamed-text';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { conversationWithRun, engineDeps } from '@/test/engine-harness';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { readFrames } from '@/test/sse-reader';
import { text } from '@/test/tool-harness';

import { resumeLapsedRuns } from './engine';
import { openEventStream } from './sse';

/**
 * A take-over redoes the step the dead instance was streaming: the text that instance streamed is
 * discarded by a stored event before the new text, and a replay of the log never shows it.
 */

const DEAD_TEXT = 'Half an answer from the instance that died';
const FRESH_TEXT = 'The whole answer, streamed by the instance that took over.';

const emptyState = (): ChatState => ({
  messages: [],
  earlier: 0,
  partials: [],
  toolCalls: {},
  activeRun: null,
  lastRun: null,
  lastSeq: 0,
  progress: {},
  retrying: null,
});

/** What a page that folds these frames shows for the run: stored messages' text, then any text still streaming. */
function shownText(frames: { event: string; data: Record<string, unknown> }[]): { state: ChatState; text: string } {
  let state = emptyState();
  for (const f of frames) state = applyEvent(state, { type: f.event, data: f.data } as ChatEvent);
  const stored = state.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
  return { state, text: [...stored, ...state.partials.flatMap((p) => p.blocks)].join('') };
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`taking over a run mid-stream on ${kind}`, () => {
    let h: DbHandle;
    let model: Awaited<ReturnType<typeof startScriptedModel>>;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => {
      await model?.close();
      await h?.close();
    });

    /** A running run whose instance died while streaming `DEAD_TEXT` (two coalesced deltas stored), its lease lapsed. */
    async function deadMidStream() {
      const { user, conversation, run } = await conversationWithRun(h, 'running');
      await appendMessage(h.db, { conversationId: conversation.id, role: 'user', content: [{ type: 'text', text: 'go' }], runId: run.id });
      const messageId = randomUUID();
      const half = DEAD_TEXT.length / 2;
      for (const [offset, part] of [
        [0, DEAD_TEXT.slice(0, half)],
        [half, DEAD_TEXT.slice(half)],
      ] as const) {
        await appendEvent(h.db, {
          conversationId: conversation.id,
          runId: run.id,
          type: 'message.delta',
          data: { messageId, blockIndex: 0, offset, text: part },
        });
      }
      await updateRunIfVersion(h.db, run.id, run.version, { leaseExpiresAt: new Date(Date.now() - 1000) });
      return { user, conversation, run, messageId };
    }

    it('discards the dead instance’s text before streaming the redone step, and a replay never shows it', async () => {
      model = await startScriptedModel([{ blocks: [text(FRESH_TEXT)] }]);
      const deps = engineDeps(h, { client: model.client, modelName: 'claude-test', instanceId: 'rescuer' });
      const { conversation, run, messageId } = await deadMidStream();

      expect(await resumeLapsedRuns(deps, conversation.id)).toBe(1);
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');

      const log = await listEventsAfter(h.db, conversation.id, 0);
      const discardAt = log.findIndex((e) => e.type === 'message.discarded');
      expect(log[discardAt]).toMatchObject({ runId: run.id, data: { messageId, reason: 'taken_over' } });
      const fresh = (e: EventRow) => e.type === 'message.delta' && e.data.messageId !== messageId;
      expect(log.findIndex(fresh)).toBeGreaterThan(discardAt);
      expect(log.filter((e) => e.type === 'message.discarded')).toHaveLength(1);

      // The stored answer is the new one; the dead text is in no message.
      const [, answer] = await listMessages(h.db, conversation.id);
      expect(answer!.content).toEqual([{ type: 'text', text: FRESH_TEXT }]);

      // A client replaying the whole log: none of the dead text is sent, and what it shows is the answer once.
      const frames = await readFrames((await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: 0 }))!);
      expect(frames.filter((f) => f.event === 'message.delta' && f.data.messageId === messageId)).toEqual([]);
      expect(frames.map((f) => f.event)).toContain('message.discarded');
      const streamed = frames.filter((f) => f.event === 'message.delta').map((f) => f.data.text as string);
      expect(streamed.join('')).toBe(FRESH_TEXT);
      expect(shownText(frames).text).toBe(FRESH_TEXT);

      // A client that had followed the dead instance's text live, then replays from there on.
      const seenLive = log.filter((e) => e.type === 'message.delta' && e.data.messageId === messageId).at(-1)!.seq;
      const rest = await readFrames(
        (await openEventStream({ db: h.db, bus: deps.bus, conversationId: conversation.id, afterSeq: seenLive }))!,
      );
      const before = log.filter((e) => e.seq <= seenLive).map((e) => ({ event: e.type, data: { ...e.data, seq: e.seq, runId: e.runId } }));
      const midway = shownText(before);
      expect(midway.text).toBe(DEAD_TEXT);
      expect(shownText([...before, ...rest]).text).toBe(FRESH_TEXT);
    });

    it('leaves alone a message stored with its partial text, and does not discard a message twice', async () => {
      const { conversation, run, messageId } = await deadMidStream();
      expect(await listAbandonedStreams(h.db, conversation.id, run.id)).toEqual([messageId]);
      await appendEvent(h.db, {
        conversationId: conversation.id,
        runId: run.id,
        type: 'message.discarded',
        data: { messageId, reason: 'taken_over' },
      });
      expect(await listAbandonedStreams(h.db, conversation.id, run.id)).toEqual([]);

      const stoppedId = randomUUID();
      await appendEvent(h.db, {
        conversationId: conversation.id,
        runId: run.id,
        type: 'message.delta',
        data: { messageId: stoppedId, blockIndex: 0, offset: 0, text: 'kept' },
      });
      expect(await listAbandonedStreams(h.db, conversation.id, run.id)).toEqual([stoppedId]);
      await appendMessage(h.db, {
        id: stoppedId,
        conversationId: conversation.id,
        role: 'assistant',
        content: [{ type: 'text', text: 'kept' }],
        runId: run.id,
        stopReason: 'cancelled',
      });
      expect(await listAbandonedStreams(h.db, conversation.id, run.id)).toEqual([]);
    });
  });
}
