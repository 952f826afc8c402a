import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { listPath } from '@/db/queries/messages';
import { createUser } from '@/db/queries/users';
import { startRun } from '@/lib/agent/engine';
import { rejection } from '@/test/app-error';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { isShown } from './redact';
import { createShare, openShare, openSharedMessages, type ShareRuntime } from './service';
import type { SharedMessagesPage } from './views';

/**
 * A long shared conversation reaches the reader a page at a time from its start: 24 real turns
 * (every other one calling the fixture server's echo), shared, then read page by page.
 */
const ORIGIN = 'http://localhost:3000';
const TURNS = 24;
const tokenOf = (url: string) => url.split('/share/')[1]!;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`a long shared conversation on ${kind}`, () => {
    let h: DbHandle;
    let rt: ShareRuntime;
    let token: string;
    let conversationId: string;
    let ownerId: string;
    let close: () => Promise<void>;

    beforeAll(async () => {
      // Two dozen turns in seconds: past the plan's pace of a person typing.
      vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ messagesPerMinute: 100_000, runsPerHour: 100_000 }));
      h = await openTestDb(kind);
      rt = { handle: { db: h.db }, modelConfig: { model: 'claude-test' } };
      const owner = (await createUser(h.db, { email: `long-share-${Math.random().toString(36).slice(2)}@example.test` }))!;
      ownerId = owner.id;
      const conversation = await createConversation(h.db, { userId: owner.id, model: 'claude-test' });
      conversationId = conversation.id;
      const script = Array.from({ length: TURNS }, (_, i) =>
        i % 2 === 0
          ? [
              { blocks: [text(`Echoing ${i}.`), toolUse(`tu_${i}`, 'fx__echo', { message: `secret-${i}` })] },
              { blocks: [text(`Echoed ${i}.`)] },
            ]
          : [{ blocks: [text(`Answer ${i}.`)] }],
      ).flat();
      const env = await toolEngine(h, { script });
      for (let i = 0; i < TURNS; i++) {
        await startRun(env.deps, { conversationId: conversation.id, userId: owner.id, sessionId: null, text: `question ${i}` });
        await env.deps.idle();
      }
      close = env.close;
      const { url } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      token = tokenOf(url);
    }, 120_000);
    afterAll(async () => {
      vi.unstubAllEnvs();
      await close?.();
      await h?.close();
    });

    const textOf = (m: SharedMessagesPage['messages'][number]) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');

    it('shows its first turns, then every later page once, in order, each starting a turn, its calls redacted', async () => {
      const path = await listPath(h.db, conversationId);
      expect(path).toHaveLength(TURNS * 3);
      const first = await openShare(rt, token, null, null);
      // The first 60 stored messages — 20 whole turns of 4 and 2 — less the tool results (nothing of them shows).
      expect(first.messages.map((m) => m.id)).toEqual(
        path
          .slice(0, 60)
          .filter(isShown)
          .map((m) => m.id),
      );
      expect(first.later).toBe(path.filter(isShown).length - first.messages.length);

      const pages: SharedMessagesPage[] = [first];
      for (let page: SharedMessagesPage = first; page.next;) {
        page = await openSharedMessages(rt, token, null, null, { after: page.next, limit: 7 });
        pages.push(page);
      }
      expect(pages.length).toBeGreaterThan(2);
      expect(pages.at(-1)).toMatchObject({ later: 0, next: null });
      const shown = pages.flatMap((p) => p.messages);
      expect(shown.map((m) => m.id)).toEqual(path.filter(isShown).map((m) => m.id));
      for (const page of pages) {
        // Whole turns: a page starts with the person's question and ends with the model's answer.
        expect(page.messages[0]).toMatchObject({ role: 'user' });
        expect(textOf(page.messages[0]!)).toMatch(/^question \d+$/);
        expect(page.messages.at(-1)).toMatchObject({ role: 'assistant' });
        const asked = page.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
        expect(page.toolCalls.map((c) => c.toolUseId)).toEqual(asked);
        for (const call of page.toolCalls) expect(call).toMatchObject({ input: {}, result: null, detailsHidden: true });
      }
      expect(JSON.stringify(pages)).not.toContain('secret-');
    });

    it('finds no page after a message outside the snapshot', async () => {
      const later = await toolEngine(h, { script: [{ blocks: [text('After the snapshot.')] }] });
      await startRun(later.deps, { conversationId, userId: ownerId, sessionId: null, text: 'one more' });
      await later.deps.idle();
      await later.close();
      const newest = (await listPath(h.db, conversationId)).at(-1)!;
      const err = await rejection(openSharedMessages(rt, token, null, null, { after: newest.id, limit: 10 }));
      expect(err.code).toBe('not_found:message');
      const other = await rejection(openSharedMessages(rt, token, null, null, { after: crypto.randomUUID(), limit: 10 }));
      expect(other.code).toBe('not_found:message');
      expect((await rejection(openSharedMessages(rt, 'not a token', null, null, { after: newest.id, limit: 10 }))).code).toBe(
        'not_found:share',
      );
    });
  });
}
