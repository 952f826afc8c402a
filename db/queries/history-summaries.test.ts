import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';

import { insertHistorySummary, listHistorySummaries, readHistory } from './history-summaries';
import { appendMessage } from './messages';

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`history summaries on ${kind}`, () => {
    let h: DbHandle;
    const statements: string[] = [];
    beforeAll(async () => {
      h = await openTestDb(kind, { onStatement: (s) => statements.push(s) });
    });
    afterAll(async () => h?.close());

    it('readHistory: the newest summary and only the messages after it, in one statement', async () => {
      const { conversation } = await userAndConversation(h);
      const c = conversation.id;
      for (let i = 1; i <= 6; i++)
        await appendMessage(h.db, { conversationId: c, role: i % 2 ? 'user' : 'assistant', content: [{ type: 'text', text: `m${i}` }] });
      const none = await readHistory(h.db, c);
      expect(none.summary).toBeNull();
      expect(none.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(none.messages[0]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'm1' }], conversationId: c });
      expect(none.messages[0]!.createdAt).toBeInstanceOf(Date);

      await insertHistorySummary(h.db, { conversationId: c, throughSeq: 2, text: 'first two', runId: null });
      await insertHistorySummary(h.db, { conversationId: c, throughSeq: 4, text: 'first four: "quoted" \\ text', runId: null });
      statements.length = 0;
      const read = await readHistory(h.db, c);
      expect(read.summary).toMatchObject({ throughSeq: 4, text: 'first four: "quoted" \\ text', conversationId: c });
      expect(read.messages.map((m) => m.seq)).toEqual([5, 6]);
      expect(statements).toHaveLength(1);
      expect((await listHistorySummaries(h.db, c)).map((s) => s.throughSeq)).toEqual([2, 4]);
      // Another conversation's summary is not this one's.
      const other = await userAndConversation(h);
      expect((await readHistory(h.db, other.conversation.id)).summary).toBeNull();
    });
  });
}
