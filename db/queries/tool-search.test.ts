import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openTestDb, TEST_DATABASES } from '../../test/db';
import type { DbHandle } from '../connection';
import { createConversation } from './conversations';
import { insertRun } from './runs';
import { insertToolCalls, type NewToolCall } from './tool-calls';
import { listFoundTools, listRecentTools } from './tool-search';
import { createUser } from './users';

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`tool search queries on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function conversationWithRun() {
      const user = (await createUser(h.db, { email: `ts-${Math.random().toString(36).slice(2)}@example.test`, passwordHash: 'x' }))!;
      const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
      const run = (await insertRun(h.db, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        model: 'demo',
        leaseOwner: 'x',
        leaseExpiresAt: new Date(),
      }))!;
      let n = 0;
      /** One step's calls: (server id or null, tool, status, found tools). */
      const step = (step: number, calls: [string | null, string, NewToolCall['status'], NewToolCall['foundTools']?][]) =>
        insertToolCalls(
          h.db,
          calls.map(([serverId, tool, status, foundTools], position) => ({
            runId: run.id,
            conversationId: conversation.id,
            userId: user.id,
            step,
            position,
            toolUseId: `tu_${++n}`,
            modelName: `${serverId}__${tool}`,
            serverId,
            tool: serverId ? tool : null,
            input: {},
            argsHash: 'h',
            status,
            foundTools: foundTools ?? null,
          })),
        );
      return { conversation, run, step };
    }

    it('lists the last distinct tools called, newest first, without host tools or names never offered', async () => {
      const { conversation, step } = await conversationWithRun();
      await step(1, [
        ['srv-a', 'one', 'succeeded'],
        ['srv-a', 'two', 'denied'],
      ]);
      await new Promise((r) => setTimeout(r, 5));
      await step(2, [
        ['host', 'search_tools', 'succeeded'],
        [null, 'invented', 'rejected'],
        ['srv-b', 'three', 'rejected'],
      ]);
      await new Promise((r) => setTimeout(r, 5));
      await step(3, [['srv-a', 'one', 'succeeded']]);

      const recent = await listRecentTools(h.db, conversation.id, 'host', 10);
      expect(recent).toEqual([
        { serverId: 'srv-a', tool: 'one' },
        { serverId: 'srv-b', tool: 'three' },
        { serverId: 'srv-a', tool: 'two' },
      ]);
      expect(await listRecentTools(h.db, conversation.id, 'host', 2)).toEqual(recent.slice(0, 2));
      expect(await listRecentTools(h.db, conversation.id, 'host', 0)).toEqual([]);
    });

    it('lists what the run’s succeeded searches found, newest search first', async () => {
      const { run, step } = await conversationWithRun();
      const found = (...tools: string[]) => ({ v: 1 as const, tools: tools.map((tool) => ({ serverId: 'srv-a', tool })) });
      await step(1, [['host', 'search_tools', 'succeeded', found('a', 'b')]]);
      await step(2, [
        ['host', 'search_tools', 'succeeded', found('c')],
        ['host', 'search_tools', 'errored', found('never')],
      ]);
      expect((await listFoundTools(h.db, run.id)).map((t) => t.tool)).toEqual(['c', 'a', 'b']);
    });
  });
}
