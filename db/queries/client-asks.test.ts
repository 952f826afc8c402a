import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openTestDb, TEST_DATABASES } from '@/test/db';

import type { DbHandle } from '../connection';
import { findUnansweredAsk, insertClientAsk, markClientAskAnswered } from './client-asks';
import { createConversation } from './conversations';
import { createUser } from './users';

/** What a retried `switchboard_ask` finds (lib/gateway/ask-tool.ts): the same client's unanswered call with the same prompt. */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`client asks on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => {
      await h?.close();
    });

    it('finds an unanswered call by client, prompt and conversation (or none given), until it is answered', async () => {
      const user = (await createUser(h.db, { email: `q-${randomUUID()}@example.test` }))!;
      const other = (await createUser(h.db, { email: `q-${randomUUID()}@example.test` }))!;
      const c = await createConversation(h.db, { userId: user.id, model: 'demo' });
      const clientId = randomUUID();
      const started = await insertClientAsk(h.db, {
        userId: user.id,
        clientId,
        conversationId: c.id,
        runId: randomUUID(),
        promptHash: 'h1',
        followUp: false,
      });
      const since = new Date(Date.now() - 60_000);
      const find = (over: Partial<Parameters<typeof findUnansweredAsk>[1]>) =>
        findUnansweredAsk(h.db, { userId: user.id, clientId, promptHash: 'h1', conversationId: null, since, ...over });
      expect((await find({}))?.id).toBe(started.id);
      expect((await find({ conversationId: c.id }))?.id).toBe(started.id);
      // Another prompt, client or person, or a call older than the window: none.
      expect(await find({ promptHash: 'h2' })).toBeNull();
      expect(await find({ clientId: randomUUID() })).toBeNull();
      expect(await find({ userId: other.id })).toBeNull();
      expect(await find({ since: new Date(Date.now() + 60_000) })).toBeNull();

      // A follow-up is found in its conversation only, never as a call that started one.
      const followUp = await insertClientAsk(h.db, {
        userId: user.id,
        clientId,
        conversationId: c.id,
        runId: randomUUID(),
        promptHash: 'h3',
        followUp: true,
      });
      expect((await find({ promptHash: 'h3', conversationId: c.id }))?.id).toBe(followUp.id);
      expect(await find({ promptHash: 'h3' })).toBeNull();

      await markClientAskAnswered(h.db, started.id);
      expect(await find({})).toBeNull();
    });
  });
}
