import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { toolCalls } from '@/db/schema';
import type { ConnectDeps } from '@/lib/mcp/connection';
import type { ModelConfig } from '@/lib/model/client';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import type { ChatRuntime } from './runtime';
import { sendMessage } from './service';
import { updateViewContext } from './view-context';

/**
 * What makes a view's context new for the model (`ui/update-model-context`, then the person's next
 * message): new content, even within one millisecond of the last, and not the same state sent again
 * (a view re-sends it on load). A server whose views are switched off has none put before the model.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`when a view's context is owed to the model, on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('once per content: a re-send is not new, an update in the same millisecond is, and views switched off wait', async () => {
      const env = await toolEngine(h, {
        script: [
          { blocks: [toolUse('tu_e', 'fx__echo', { message: 'rows' })] },
          ...Array.from({ length: 6 }, () => ({ blocks: [text('Ok.')] })),
        ],
      });
      const rt = {
        handle: h,
        engine: env.deps,
        modelConfig: { model: 'claude-test' } as ModelConfig,
        models: { list: async () => ({ models: [], default: 'claude-test', error: null }), listedLimits: () => null },
        tools: { host: env.deps.tools!, connectDeps: {} as ConnectDeps },
      } as ChatRuntime;
      const { user, conversation } = await userAndConversation(h);
      const session = { userId: user.id, sessionId: 'session-1' };
      const send = async (words: string) => {
        await sendMessage(rt, session, conversation.id, words, {});
        await env.deps.idle();
        return JSON.stringify(env.model.requests.at(-1)!.body.messages.at(-1));
      };
      await send('show the rows');
      const [echo] = await listConversationToolCalls(h.db, conversation.id);
      await h.db.update(toolCalls).set({ viewUri: 'ui://fixture/echo' }).where(eq(toolCalls.id, echo!.id));
      // Updates in one frozen millisecond unless said otherwise, as a view sending two states at once would.
      const says = async (words: string, structured?: Record<string, unknown>, ms = 0) => {
        vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-12-06T12:00:00.000Z') + ms });
        try {
          return await updateViewContext(rt, user.id, echo!.id, {
            content: [{ type: 'text', text: words }],
            ...(structured && { structuredContent: structured }),
          });
        } finally {
          vi.useRealTimers();
        }
      };

      const first = await says('Row 3 is picked.', { row: 3, of: 9 });
      expect(await send('which one?')).toContain('Row 3 is picked.');
      // The same state again, later (its structured keys in another order): nothing new, the same mark.
      const again = await says('Row 3 is picked.', { of: 9, row: 3 }, 5);
      expect(again.toolCall.viewContext).toEqual(first.toolCall.viewContext);
      expect(await send('and now?')).not.toContain('Row 3 is picked.');
      // Another state in the same millisecond: a later mark, so it is owed.
      const next = await says('Row 4 is picked.');
      expect(Date.parse(next.toolCall.viewContext!.at)).toBeGreaterThan(Date.parse(first.toolCall.viewContext!.at));
      expect(await send('now?')).toContain('Row 4 is picked.');

      // Views of the server switched off: the context waits, and is owed once they are on again.
      await says('Row 5 is picked.');
      env.server.showViews = false;
      expect(await send('still there?')).not.toContain('Row 5 is picked.');
      env.server.showViews = true;
      expect(await send('back?')).toContain('Row 5 is picked.');
      await env.close();
    });
  });
}
