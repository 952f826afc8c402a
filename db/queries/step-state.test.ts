import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';

import { createAuthSession, endAuthSession, touchAuthSession } from './auth-sessions';
import { setConversationInstructions } from './conversations';
import { switchOff, switchOn } from './grants';
import { addModelTokens } from './model-usage';
import { deleteServer, insertServer, setServerEnabled, type NewServer } from './servers';
import { readStepState, readToolsRev } from './step-state';
import { markConversationTainted } from './taint';
import { setUserInstructions } from './users';

const server: NewServer = {
  name: 'Weather',
  namespace: 'weather',
  url: 'https://mcp.example.test/mcp',
  trust: 'untrusted',
  headersSealed: null,
  oauthClientId: null,
  oauthClientSecretSealed: null,
  timeoutMs: 30_000,
};

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`step state on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('bumps users.tools_rev on every change to servers, switches and session endings, and only then', async () => {
      const { user, conversation } = await userAndConversation(h);
      const rev = async () => (await readToolsRev(h.db, user.id))!;
      const seen = [await rev()];
      const step = async (change: () => Promise<unknown>) => {
        await change();
        seen.push(await rev());
      };
      const added = (await insertServer(h.db, user.id, server))!;
      seen.push(await rev());
      await step(() => setServerEnabled(h.db, user.id, added.id, true));
      const ids = { userId: user.id, conversationId: conversation.id, serverId: added.id, tool: 'forecast' };
      await step(() => switchOff(h.db, ids));
      await step(() => switchOn(h.db, ids));
      await createAuthSession(h.db, { id: 'sess-rev', userId: user.id, expiresAt: new Date(Date.now() + 60_000) });
      const beforeTouch = await rev();
      await touchAuthSession(h.db, 'sess-rev', new Date(Date.now() + 10 * 60_000));
      // Being seen is not a change of what the session may do.
      expect(await rev()).toBe(beforeTouch);
      await step(() => endAuthSession(h.db, 'sess-rev'));
      await step(() => deleteServer(h.db, user.id, added.id));
      for (let i = 1; i < seen.length; i++) expect(seen[i], `change ${i}`).toBeGreaterThan(seen[i - 1]!);
    });

    it('reads the tokens of today, stored results and taint with the revision in one statement', async () => {
      const { user, conversation } = await userAndConversation(h);
      expect(await readStepState(h.db, user.id, conversation.id)).toMatchObject({
        tokensToday: 0,
        hasStoredResults: false,
        taintedBy: null,
      });
      await addModelTokens(h.db, user.id, 1234);
      await markConversationTainted(h.db, conversation.id, {
        v: 1,
        at: new Date().toISOString(),
        source: 'tool_description',
        serverId: 's',
        serverName: 'S',
      });
      expect(await readStepState(h.db, user.id, conversation.id)).toMatchObject({ tokensToday: 1234, taintedBy: 'S' });
      expect(await readStepState(h.db, user.id, '00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it("reads the person's instructions and the conversation's with them, no statement of their own", async () => {
      const { user, conversation } = await userAndConversation(h);
      expect((await readStepState(h.db, user.id, conversation.id))!.instructions).toEqual({ personal: null, conversation: null });
      await setUserInstructions(h.db, user.id, 'I am Ada.');
      await setConversationInstructions(h.db, user.id, conversation.id, 'Answer in French.');
      expect((await readStepState(h.db, user.id, conversation.id))!.instructions).toEqual({
        personal: 'I am Ada.',
        conversation: 'Answer in French.',
      });
    });
  });
}
