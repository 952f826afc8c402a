import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation, deleteConversation } from '@/db/queries/conversations';
import { listMessages } from '@/db/queries/messages';
import { addModelTokens, modelTokensToday } from '@/db/queries/model-usage';
import { getRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { errorResponse } from '@/lib/http/errors';
import { LimitExceeded } from '@/lib/limits';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { startRun } from './engine';

/**
 * The plan limits of a turn (issue 9): turns started per hour and model tokens per day, each
 * refused with a 429 that names the limit and the user's plan.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`plan limits of a turn on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());
    afterEach(() => vi.unstubAllEnvs());

    const limits = (values: Record<string, number>) => vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify(values));
    async function userOn(plan: 'free' | 'pro' | 'enterprise') {
      const user = (await createUser(h.db, { email: `${plan}-${Math.random().toString(36).slice(2)}@example.test`, plan }))!;
      const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
      return { user, conversation };
    }
    const send = (deps: ReturnType<typeof engineDeps>, userId: string, conversationId: string) =>
      startRun(deps, { conversationId, userId, sessionId: null, text: 'hello' });

    it('refuses a turn past runsPerHour with a 429 naming the limit and the plan; a refused turn stores nothing', async () => {
      limits({ runsPerHour: 2, messagesPerMinute: 100 });
      const deps = engineDeps(h);
      const { user, conversation } = await userOn('free');
      for (let i = 0; i < 2; i++) {
        await send(deps, user.id, conversation.id);
        await deps.idle();
      }
      const refused = await send(deps, user.id, conversation.id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LimitExceeded);
      const response = errorResponse(refused);
      expect(response.status).toBe(429);
      expect((await response.json()).error).toEqual({
        code: 'rate_limited:runsPerHour',
        limit: 'runsPerHour',
        plan: 'free',
        message: 'Limit reached on the free plan: at most 2 turns started per hour. Wait up to an hour before starting another turn.',
      });
      expect((await listMessages(h.db, conversation.id)).filter((m) => m.role === 'user')).toHaveLength(2);
      // Another user's hour is their own.
      const other = await userOn('free');
      await send(deps, other.user.id, other.conversation.id);
      await deps.idle();
    });

    it('uses the plan’s own turns per hour when nothing overrides it', async () => {
      const deps = engineDeps(h);
      const { user, conversation } = await userOn('free');
      limits({ messagesPerMinute: 1000 });
      for (let i = 0; i < 20; i++) {
        await send(deps, user.id, conversation.id);
        await deps.idle();
      }
      await expect(send(deps, user.id, conversation.id)).rejects.toMatchObject({ limit: 'runsPerHour', value: 20, plan: 'free' });
      // The same count on pro is well within its plan.
      const pro = await userOn('pro');
      for (let i = 0; i < 21; i++) {
        await send(deps, pro.user.id, pro.conversation.id);
        await deps.idle();
      }
    });

    it('counts the tokens the model reports for each step, per user and UTC day', async () => {
      const env = await toolEngine(h, {
        script: [{ blocks: [toolUse('tu_1', 'fx__echo', { message: 'hi' })] }, { blocks: [text('done')] }],
      });
      const { user, conversation } = await userOn('pro');
      const { run } = await send(env.deps, user.id, conversation.id);
      await env.deps.idle();
      const finished = (await getRun(h.db, run.id))!;
      expect(finished.status).toBe('completed');
      const reported = finished.usage!.inputTokens + finished.usage!.outputTokens;
      expect(reported).toBeGreaterThan(0);
      expect(await modelTokensToday(h.db, user.id)).toBe(reported);
      // Yesterday's count is another row; deleting the conversation gives nothing back.
      expect(await modelTokensToday(h.db, user.id, new Date(Date.now() - 86_400_000))).toBe(0);
      await deleteConversation(h.db, user.id, conversation.id);
      expect(await modelTokensToday(h.db, user.id)).toBe(reported);
      await env.close();
    });

    it('counts the tokens of the title the model suggests for a new conversation too', async () => {
      const deps = engineDeps(h, { titles: true });
      const { user, conversation } = await userOn('pro');
      const { run } = await send(deps, user.id, conversation.id);
      await deps.idle();
      const usage = (await getRun(h.db, run.id))!.usage!;
      expect(await modelTokensToday(h.db, user.id)).toBeGreaterThan(usage.inputTokens + usage.outputTokens);
    });

    it('refuses a turn once the day’s model tokens are used, in words naming the limit, the plan and the reset', async () => {
      limits({ modelTokensPerDay: 1000 });
      const deps = engineDeps(h);
      const { user, conversation } = await userOn('enterprise');
      await addModelTokens(h.db, user.id, 999);
      await addModelTokens(h.db, user.id, 5000, new Date(Date.now() - 86_400_000)); // yesterday: not counted
      await send(deps, user.id, conversation.id);
      await deps.idle();
      await addModelTokens(h.db, user.id, 1);
      const refused = await send(deps, user.id, conversation.id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LimitExceeded);
      expect(errorResponse(refused).status).toBe(429);
      expect((refused as LimitExceeded).message).toBe(
        'Limit reached on the enterprise plan: at most 1,000 model tokens per day (UTC). ' +
          `Your turns have used ${(await modelTokensToday(h.db, user.id)).toLocaleString('en')} model tokens today; ` +
          'the count starts again at 00:00 UTC.',
      );
      expect(refused).toMatchObject({ limit: 'modelTokensPerDay', plan: 'enterprise' });
    });

    it('stops a turn before its next model step once the day’s tokens are used, saying so', async () => {
      limits({ modelTokensPerDay: 5 });
      const env = await toolEngine(h, {
        script: [{ blocks: [toolUse('tu_1', 'fx__echo', { message: 'hi' })] }, { blocks: [text('never')] }],
      });
      const { user, conversation } = await userOn('pro');
      const { run } = await send(env.deps, user.id, conversation.id);
      await env.deps.idle();
      const ended = (await getRun(h.db, run.id))!;
      expect(ended.status).toBe('failed');
      expect(ended.error).toMatchObject({ code: 'rate_limited:modelTokensPerDay' });
      expect(ended.error!.message).toMatch(/^Limit reached on the pro plan: at most 5 model tokens per day \(UTC\)\./);
      // The call of the first step ran and its result is in the history; no second model call.
      expect(env.model.requests).toHaveLength(1);
      expect(env.fixture.calls.filter((c) => c.name === 'echo')).toHaveLength(1);
      await env.close();
    });
  });
}
