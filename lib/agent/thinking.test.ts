import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { listMessages } from '@/db/queries/messages';
import { getRun } from '@/db/queries/runs';
import { createModelClient } from '@/lib/model/client';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { startRun } from './engine';
import { THINKING_BUDGET, thinkingBudgetProblem, thinkingRequest } from './thinking';

const ON = { v: 1 as const, enabled: true, budgetTokens: 2000 };

describe('extended thinking in a model request', () => {
  it('asks for thinking with room for the answer on top of its budget; off asks for nothing', () => {
    expect(thinkingRequest(ON, 4096)).toEqual({ thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 6096 });
    expect(thinkingRequest({ ...ON, enabled: false }, 4096)).toEqual({ max_tokens: 4096 });
    expect(thinkingRequest(null, 4096)).toEqual({ max_tokens: 4096 });
  });

  it('takes a budget the API accepts, and says what is allowed otherwise', () => {
    expect(thinkingBudgetProblem(THINKING_BUDGET.default)).toBeNull();
    expect(thinkingBudgetProblem(1000)).toBe('must be a whole number of tokens from 1024 to 32000 (got 1000)');
    expect(thinkingBudgetProblem(1500.5)).not.toBeNull();
  });
});

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`extended thinking through the engine on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('keeps thinking blocks and their signatures byte for byte across a tool round trip, and streams them marked', async () => {
      const thought = {
        type: 'thinking' as const,
        thinking: 'The person wants an echo. I will call fx__echo with “hi”.',
        signature: 'c2lnLTE=.Ab+/9',
      };
      const redacted = { type: 'redacted_thinking' as const, data: 'EncryptedOpaque==' };
      const env = await toolEngine(h, {
        script: [
          { blocks: [thought, redacted, text('Echoing.'), toolUse('tu_t', 'fx__echo', { message: 'hi' })] },
          { blocks: [{ type: 'thinking', thinking: 'It came back.', signature: 'c2lnLTI=' }, text('It said hi.')] },
        ],
      });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'echo hi',
        thinking: ON,
      });
      await env.deps.idle();
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', thinking: ON });

      const [first, second] = env.model.requests;
      expect(first!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 2000 + 4096 });
      expect(second!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2000 } });
      // The assistant turn goes back exactly as the model gave it, thinking and signature included.
      const sentBack = second!.body.messages[1]!;
      expect(sentBack.role).toBe('assistant');
      // (Key order is the database's: jsonb keeps values, not the order of keys, and the API reads values.)
      const [sentThought, sentRedacted] = sentBack.content as (typeof thought | typeof redacted)[];
      expect(sentThought).toEqual(thought);
      expect(sentRedacted).toEqual(redacted);
      expect((sentThought as typeof thought).signature).toBe(thought.signature);
      expect((sentThought as typeof thought).thinking).toBe(thought.thinking);

      const stored = await listMessages(h.db, conversation.id);
      expect(stored.at(-1)!.content).toEqual([{ type: 'thinking', thinking: 'It came back.', signature: 'c2lnLTI=' }, text('It said hi.')]);
      const deltas = (await listEventsAfter(h.db, conversation.id, 0)).filter((e) => e.type === 'message.delta');
      const thinkingText = deltas.filter((e) => e.data.kind === 'thinking' && e.data.blockIndex === 0).map((e) => e.data.text as string);
      expect(thinkingText.join('')).toContain('The person wants an echo');
      expect(
        deltas
          .filter((e) => e.data.kind === undefined)
          .map((e) => e.data.text as string)
          .join(''),
      ).toContain('Echoing.');
      await env.close();
    });

    it('the demo model thinks when asked, signed, and not when not', async () => {
      const deps = engineDeps(h, { client: createModelClient({ DEMO_MODEL_DELAY_MS: '0' }), modelName: 'demo' });
      const { user, conversation } = await userAndConversation(h);
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'Hello there', thinking: ON });
      await deps.idle();
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'And again' });
      await deps.idle();
      const answers = (await listMessages(h.db, conversation.id)).filter((m) => m.role === 'assistant');
      expect(answers[0]!.content[0]).toMatchObject({
        type: 'thinking',
        thinking: expect.stringContaining('Hello there'),
        signature: expect.stringMatching(/^demo-signature-/),
      });
      expect(answers[1]!.content.some((b) => b.type === 'thinking')).toBe(false);
    });
  });
}
