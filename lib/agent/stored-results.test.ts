import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { deleteConversation } from '@/db/queries/conversations';
import { getRun } from '@/db/queries/runs';
import { getStoredResult, listConversationToolCalls, storedResultBytes } from '@/db/queries/tool-calls';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { startRun } from './engine';
import { toToolCallView } from './tool-call-view';

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

/** Security review: one user could fill the database with stored results; now a per-user quota bounds them. */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`stored-results quota on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());
    afterEach(() => vi.unstubAllEnvs());

    it('keeps only what the model saw once the stored-results quota is full, and says so to the model and the person', async () => {
      vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ storedResultBytesPerUser: 150 * 1024 }));
      const env = await toolEngine(h, {
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [
          // Two 100 KB results at once: the quota holds one of them, even in parallel.
          { blocks: [toolUse('tu_a', 'fx__huge', { chars: 100_000 }), toolUse('tu_b', 'fx__huge', { chars: 100_000 })] },
          { blocks: [text('Noted.')] },
        ],
      });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await env.deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');

      const results = env.model.requests[1]!.body.messages.at(-1)!.content as Block[];
      const texts = results.map((r) => JSON.stringify(r.content));
      expect(results.map((r) => r.is_error ?? false)).toEqual([false, false]);
      const kept = texts.filter((t) => t.includes('Call switchboard__read_result'));
      const dropped = texts.filter((t) => t.includes('The rest was not kept'));
      expect([kept.length, dropped.length]).toEqual([1, 1]);
      expect(dropped[0]).toContain('the stored-results quota (150 KB) of this account is full');
      expect(dropped[0]).toContain('deleting conversations they no longer need');
      expect(dropped[0]).not.toContain('read_result');
      // The part within the budget was still sent.
      expect(dropped[0]!.length).toBeGreaterThan(30_000);

      expect(await storedResultBytes(h.db, user.id)).toBe(100_000);
      const calls = await listConversationToolCalls(h.db, conversation.id);
      const stored = await Promise.all(calls.map((c) => getStoredResult(h.db, conversation.id, c.id)));
      expect(stored.filter(Boolean)).toHaveLength(1);
      // The person reads the same sentence on the call's card.
      const view = calls.map(toToolCallView).find((c) => JSON.stringify(c.result).includes('The rest was not kept'));
      expect(view?.status).toBe('succeeded');

      // Deleting the conversation frees the space, as the sentence says.
      await deleteConversation(h.db, user.id, conversation.id);
      expect(await storedResultBytes(h.db, user.id)).toBe(0);
      await env.close();
    });

    it('keeps full results under the default quota', async () => {
      const env = await toolEngine(h, {
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [{ blocks: [toolUse('tu_a', 'fx__huge', { chars: 100_000 })] }, { blocks: [text('Noted.')] }],
      });
      const { user, conversation } = await userAndConversation(h);
      await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await env.deps.idle();
      expect(await storedResultBytes(h.db, user.id)).toBe(100_000);
      expect(JSON.stringify(env.model.requests[1]!.body.messages.at(-1)!.content)).toContain('Call switchboard__read_result');
      await env.close();
    });
  });
}
