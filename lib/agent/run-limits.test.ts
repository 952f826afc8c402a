import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { openPostgres, type DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { listMessages } from '@/db/queries/messages';
import { countActiveRunsForUser, getActiveRun, updateRunIfVersion } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { errorResponse } from '@/lib/http/errors';
import { LimitExceeded, PLAN_LIMITS } from '@/lib/limits';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';

import { RunConflict, startRun } from './engine';

/**
 * Security review "No per-user quotas": a user could open unlimited runs, each up to 20 model
 * calls on the operator's key. Starting a turn now checks messages per minute and turns in
 * progress, both counted in Postgres.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`per-user run limits on ${kind}`, () => {
    let h: DbHandle & { url?: string };
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());
    afterEach(() => vi.unstubAllEnvs());

    const limits = (values: Record<string, number>) => vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify(values));
    // Runs that nobody drives stay active: what a turn in progress looks like to the count.
    const parked = () => engineDeps(h, { schedule: () => {} });
    const send = (deps: ReturnType<typeof engineDeps>, userId: string, conversationId: string, text = 'hello') =>
      startRun(deps, { conversationId, userId, sessionId: null, text });

    it('refuses a turn past messagesPerMinute with a 429 naming the limit; a refused send stores nothing and is not counted', async () => {
      limits({ messagesPerMinute: 2 });
      const deps = engineDeps(h);
      const { user, conversation } = await userAndConversation(h);
      await send(deps, user.id, conversation.id);
      await deps.idle();
      await send(deps, user.id, conversation.id);
      await deps.idle();
      const refused = await send(deps, user.id, conversation.id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LimitExceeded);
      expect(refused).toMatchObject({ limit: 'messagesPerMinute', value: 2 });
      const response = errorResponse(refused);
      expect(response.status).toBe(429);
      expect(await response.json()).toEqual({
        error: {
          code: 'rate_limited:messagesPerMinute',
          limit: 'messagesPerMinute',
          plan: 'pro',
          message: 'Limit reached on the pro plan: at most 2 messages per minute. Wait a minute before sending another message.',
        },
      });
      expect((await listMessages(h.db, conversation.id)).filter((m) => m.role === 'user')).toHaveLength(2);
      expect(await getActiveRun(h.db, conversation.id)).toBeNull();
      // Another user has their own count.
      const other = await userAndConversation(h);
      await send(deps, other.user.id, other.conversation.id);
      await deps.idle();
      // Refused sends did not count: with a higher limit the very next one goes through.
      limits({ messagesPerMinute: 3 });
      await send(deps, user.id, conversation.id);
      await deps.idle();
    });

    it('counts messages per minute in Postgres, so every instance shares the count', async () => {
      limits({ messagesPerMinute: 1 });
      // A second handle on the same database where there is a server; PGlite has one process.
      const second = h.url ? await openPostgres(h.url, { max: 2 }) : h;
      try {
        const a = engineDeps(h, { instanceId: 'instance-a' });
        const b = engineDeps(second, { instanceId: 'instance-b' });
        const { user, conversation } = await userAndConversation(h);
        const another = await createConversation(h.db, { userId: user.id, model: 'demo' });
        await send(a, user.id, conversation.id);
        await a.idle();
        await expect(send(b, user.id, another.id)).rejects.toMatchObject({ limit: 'messagesPerMinute' });
      } finally {
        if (second !== h) await second.close();
      }
    });

    it('refuses a turn past activeRunsPerUser in any conversation; a paused one counts; the same conversation still gets 409', async () => {
      limits({ activeRunsPerUser: 2 });
      const deps = parked();
      const { user, conversation } = await userAndConversation(h);
      const second = await createConversation(h.db, { userId: user.id, model: 'demo' });
      const third = await createConversation(h.db, { userId: user.id, model: 'demo' });
      const { run } = await send(deps, user.id, conversation.id);
      const paused = (await send(deps, user.id, second.id)).run;
      await updateRunIfVersion(h.db, paused.id, paused.version, { status: 'awaiting_approval' });

      const refused = await send(deps, user.id, third.id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LimitExceeded);
      expect((refused as Error).message).toBe(
        'Limit reached on the pro plan: at most 2 turns in progress at once. Wait for a turn in another conversation to finish, ' +
          'or stop it; a turn waiting for your approval or answer counts too.',
      );
      expect(errorResponse(refused).status).toBe(429);
      expect(await listMessages(h.db, third.id)).toEqual([]);
      await expect(send(deps, user.id, conversation.id)).rejects.toBeInstanceOf(RunConflict);
      // Someone else is not affected.
      const other = await userAndConversation(h);
      await send(deps, other.user.id, other.conversation.id);
      // Once a turn ends, there is room again.
      await updateRunIfVersion(h.db, run.id, run.version, { status: 'completed' });
      await send(deps, user.id, third.id);
      expect(await countActiveRunsForUser(h.db, user.id)).toBe(2);
    });

    it('lets no two simultaneous sends slip past the active-run limit', async () => {
      limits({ activeRunsPerUser: 1 });
      const deps = parked();
      const { user } = await userAndConversation(h);
      const conversations = await Promise.all(
        Array.from({ length: 5 }, () => createConversation(h.db, { userId: user.id, model: 'demo' })),
      );
      const outcomes = await Promise.allSettled(conversations.map((c) => send(deps, user.id, c.id)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const reasons = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
      expect(reasons).toHaveLength(4);
      for (const reason of reasons) expect(reason).toMatchObject({ limit: 'activeRunsPerUser' });
      expect(await countActiveRunsForUser(h.db, user.id)).toBe(1);
    });

    it('takes the limits of the user’s plan (users.plan through limitsFor), with SWITCHBOARD_LIMITS over both', async () => {
      const saved = PLAN_LIMITS.free;
      PLAN_LIMITS.free = { activeRunsPerUser: 0 };
      try {
        const free = (await createUser(h.db, { email: `free-${Date.now()}@example.test`, passwordHash: 'x', plan: 'free' }))!;
        const freeConversation = await createConversation(h.db, { userId: free.id, model: 'demo' });
        await expect(send(parked(), free.id, freeConversation.id)).rejects.toMatchObject({ limit: 'activeRunsPerUser', value: 0 });
        const pro = await userAndConversation(h);
        await send(parked(), pro.user.id, pro.conversation.id);
        limits({ activeRunsPerUser: 1 });
        await send(parked(), free.id, freeConversation.id);
      } finally {
        PLAN_LIMITS.free = saved;
      }
    });
  });
}
