import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listMessages } from '@/db/queries/messages';
import { createModelClient } from '@/lib/model/client';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';

import { startRun } from './engine';
import { encodeSseEvent, openEventStream } from './sse';

describe('encodeSseEvent', () => {
  it('frames a stored event with id, event name and one JSON data line', () => {
    const frame = encodeSseEvent({ conversationId: 'c', runId: 'r', type: 'message.delta', seq: 7, data: { text: 'a\nb', offset: 3 } });
    expect(frame).toBe('id: 7\nevent: message.delta\ndata: {"text":"a\\nb","offset":3,"seq":7,"runId":"r"}\n\n');
  });

  it('leaves out the id of a live-only event so Last-Event-ID stays on a stored seq', () => {
    const frame = encodeSseEvent({ conversationId: 'c', runId: 'r', type: 'message.delta', data: { text: 'x' } });
    expect(frame.startsWith('event: message.delta\n')).toBe(true);
    expect(frame).toContain('"seq":null');
  });
});

/** Parses SSE frames out of a stream, in order. */
async function readFrames(stream: ReadableStream<Uint8Array>) {
  const text = await new Response(stream).text();
  return text
    .split('\n\n')
    .filter((f) => f.trim() && !f.startsWith(':'))
    .map((f) => {
      const lines = Object.fromEntries(f.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
      return { id: lines.id ? Number(lines.id) : undefined, event: lines.event!, data: JSON.parse(lines.data!) };
    });
}

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

      // Rebuild the text from deltas, dropping repeats by offset, as the browser does.
      const rebuild = (fs: typeof frames) => {
        let text = '';
        for (const f of fs.filter((f) => f.event === 'message.delta')) {
          if (f.data.offset + f.data.text.length <= text.length) continue;
          text += f.data.text.slice(text.length - f.data.offset);
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
  });
}
