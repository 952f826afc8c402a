import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openTestDb, TEST_DATABASES } from '../../test/db';
import type { DbHandle } from '../connection';
import { loadAccountData } from './account-export';
import { createConversation } from './conversations';
import { lockUserLimit } from './rate-limits';
import { countActiveRunsForUser, insertRun, updateRunIfVersion } from './runs';
import {
  getStoredResult,
  getToolCall,
  getToolCallForUser,
  insertToolCalls,
  listConversationToolCalls,
  listStepToolCalls,
  storedResultBytes,
  updateToolCallIfLeased,
  updateToolCallIfVersion,
} from './tool-calls';
import { createUser, getUserPlan } from './users';

/** The queries behind the per-user limits, and the rule that full_text is read by the paging tool only. */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`limit queries on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function userWithRun(plan?: string) {
      const user = (await createUser(h.db, { email: `l-${Math.random().toString(36).slice(2)}@example.test`, passwordHash: 'x', plan }))!;
      const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
      const run = (await insertRun(h.db, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        model: 'demo',
        leaseOwner: 'me',
        leaseExpiresAt: new Date(Date.now() + 60_000),
      }))!;
      return { user, conversation, run };
    }

    async function callWithFullText(ids: Awaited<ReturnType<typeof userWithRun>>, position: number, fullText: string | null) {
      const [row] = await insertToolCalls(h.db, [
        {
          runId: ids.run.id,
          conversationId: ids.conversation.id,
          userId: ids.user.id,
          step: 0,
          position,
          toolUseId: `tu_${position}`,
          modelName: 'fx__huge',
          serverName: 'Fixture',
          tool: 'huge',
          input: {},
          argsHash: 'h',
          fullText,
        },
      ]);
      return row!;
    }

    // Security review: every GET of a conversation read all full_text of it (megabytes per call).
    it('never loads full_text outside the paging tool: the view, steps, decisions and update results name their columns', async () => {
      const ids = await userWithRun();
      const big = 'é'.repeat(50_000);
      const inserted = await callWithFullText(ids, 0, big);
      expect(inserted).not.toHaveProperty('fullText');
      const reads = [
        ...(await listConversationToolCalls(h.db, ids.conversation.id)),
        ...(await listStepToolCalls(h.db, ids.run.id, 0)),
        await getToolCall(h.db, inserted.id),
        await getToolCallForUser(h.db, ids.user.id, inserted.id),
        await updateToolCallIfVersion(h.db, inserted.id, inserted.version, { status: 'executing' }),
        await updateToolCallIfLeased(h.db, inserted.id, inserted.version + 1, 'me', { status: 'succeeded', fullText: big }),
      ];
      expect(reads).toHaveLength(6);
      for (const row of reads) {
        expect(row).toMatchObject({ id: inserted.id, toolUseId: 'tu_0' });
        expect(row).not.toHaveProperty('fullText');
      }
      // The paging tool still reads it, in the same conversation only.
      expect((await getStoredResult(h.db, ids.conversation.id, inserted.id))!.fullText).toBe(big);
      expect(await getStoredResult(h.db, (await userWithRun()).conversation.id, inserted.id)).toBeNull();
    });

    it('exports the size of a stored result, never its text (the texts add up to the whole quota)', async () => {
      const ids = await userWithRun();
      await callWithFullText(ids, 0, 'é'.repeat(500));
      const data = await loadAccountData(h.db, ids.user.id);
      expect(data!.toolCalls).toHaveLength(1);
      expect(data!.toolCalls[0]).toMatchObject({ storedResultBytes: 1000 });
      expect(JSON.stringify(data)).not.toContain('éé');
    });

    it('sums the bytes of stored result text per user (UTF-8 bytes, not characters)', async () => {
      const ids = await userWithRun();
      expect(await storedResultBytes(h.db, ids.user.id)).toBe(0);
      await callWithFullText(ids, 0, 'a'.repeat(1000));
      await callWithFullText(ids, 1, 'é'.repeat(1000));
      await callWithFullText(ids, 2, null);
      expect(await storedResultBytes(h.db, ids.user.id)).toBe(3000);
      const other = await userWithRun();
      await callWithFullText(other, 0, 'b'.repeat(10));
      expect(await storedResultBytes(h.db, ids.user.id)).toBe(3000);
      expect(await storedResultBytes(h.db, other.user.id)).toBe(10);
    });

    it('counts a user’s active runs across conversations, paused ones included, ended ones not', async () => {
      const a = await userWithRun('free');
      expect(await getUserPlan(h.db, a.user.id)).toBe('free');
      expect(await countActiveRunsForUser(h.db, a.user.id)).toBe(1);
      const second = await createConversation(h.db, { userId: a.user.id, model: 'demo' });
      const paused = (await insertRun(h.db, {
        conversationId: second.id,
        userId: a.user.id,
        sessionId: null,
        model: 'demo',
        leaseOwner: 'me',
        leaseExpiresAt: new Date(),
      }))!;
      await updateRunIfVersion(h.db, paused.id, paused.version, { status: 'awaiting_approval' });
      expect(await countActiveRunsForUser(h.db, a.user.id)).toBe(2);
      await updateRunIfVersion(h.db, a.run.id, a.run.version, { status: 'completed' });
      expect(await countActiveRunsForUser(h.db, a.user.id)).toBe(1);
      expect(await countActiveRunsForUser(h.db, (await userWithRun()).user.id)).toBe(1);
    });

    it('holds a per-user limit lock until the transaction ends', async () => {
      const { user } = await userWithRun();
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const first = h.db.transaction(async (tx) => {
        await lockUserLimit(tx, user.id, 'activeRunsPerUser');
        order.push('first locked');
        await held;
        order.push('first done');
      });
      await new Promise((r) => setTimeout(r, 50));
      const second = h.db.transaction(async (tx) => {
        await lockUserLimit(tx, user.id, 'activeRunsPerUser');
        order.push('second locked');
      });
      await new Promise((r) => setTimeout(r, 100));
      release();
      await Promise.all([first, second]);
      expect(order).toEqual(['first locked', 'first done', 'second locked']);
    });
  });
}
