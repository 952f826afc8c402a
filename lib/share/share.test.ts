import { eq, like } from 'drizzle-orm';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { ToolCallCard } from '@/app/_components/tool-call/tool-call-card';
import type { DbHandle } from '@/db/connection';
import { createConversation, deleteConversation, getConversation, setConversationInstructions } from '@/db/queries/conversations';
import { listMessages } from '@/db/queries/messages';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { createUser, setUserInstructions } from '@/db/queries/users';
import { rateLimits, shareLinks, toolCalls, toolGrants } from '@/db/schema';
import { decideCall } from '@/lib/agent/decide';
import { DEFAULT_SYSTEM_PROMPT } from '@/lib/agent/deps';
import { startRun } from '@/lib/agent/engine';
import { toMessageParams } from '@/lib/agent/history';
import { toToolCallView } from '@/lib/agent/tool-call-view';
import { rejection } from '@/test/app-error';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { HIDDEN_RESULT_TEXT } from './redact';
import {
  createShare,
  forkShare,
  listConversationShares,
  listUserShares,
  openShare,
  revokeShare,
  updateShareSnapshot,
  type ShareRuntime,
} from './service';
import { hashShareToken } from './tokens';

/**
 * Share links over the real engine: turns made by a scripted model and the fixture MCP server on
 * 127.0.0.1, stored in a real database, then shared, read, updated, revoked and forked.
 */
const SECRET = 'ARG-7f3c-secret';
const ORIGIN = 'http://localhost:3000';
const tokenOf = (url: string) => url.split('/share/')[1]!;

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`share links on ${kind}`, () => {
    let h: DbHandle;
    let rt: ShareRuntime;
    beforeAll(async () => {
      h = await openTestDb(kind);
      rt = { handle: { db: h.db }, modelConfig: { model: 'claude-test' } };
    });
    afterAll(async () => h?.close());

    const newUser = async (tag: string) =>
      (await createUser(h.db, { email: `${tag}-${Math.random().toString(36).slice(2)}@example.test` }))!;

    /**
     * A conversation of two finished turns — a tool call (echo of SECRET, asked and allowed:
     * the fixture server is untrusted) then an answer — and, when asked, a third turn waiting
     * for approval.
     */
    async function conversationWithTurns(opts: { pending?: boolean } = {}) {
      const owner = await newUser('owner');
      const conversation = await createConversation(h.db, { userId: owner.id, model: 'claude-test' });
      const env = await toolEngine(h, {
        trust: 'untrusted',
        script: [
          { blocks: [text('Let me echo it.'), toolUse('tu_1', 'fx__echo', { message: SECRET })] },
          { blocks: [text('The echo came back.')] },
          { blocks: [text('Second answer.')] },
          { blocks: [toolUse('tu_3', 'fx__echo', { message: 'pending-call-arg' })] },
        ],
      });
      const turn = async (words: string) => {
        await startRun(env.deps, { conversationId: conversation.id, userId: owner.id, sessionId: null, text: words });
        await env.deps.idle();
      };
      await turn('first question');
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      await decideCall(env.deps, { userId: owner.id, toolCallId: call!.id, argsHash: call!.argsHash, decision: 'allow_once' });
      await env.deps.idle();
      await turn('second question');
      if (opts.pending) await turn('third question');
      return { owner, conversation, env };
    }

    it('refuses to share a conversation with no finished turn, and another person’s conversation', async () => {
      const owner = await newUser('empty');
      const conversation = await createConversation(h.db, { userId: owner.id, model: 'claude-test' });
      const options = { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' } as const;
      const empty = await rejection(createShare(rt, owner.id, conversation.id, options, ORIGIN));
      expect(empty.code).toBe('conflict:share');
      expect(empty.message).toMatch(/finished turns only/);
      const stranger = await newUser('stranger');
      expect((await rejection(createShare(rt, stranger.id, conversation.id, options, ORIGIN))).code).toBe('not_found:conversation');
    });

    it('shares the finished turns only: a turn waiting for approval is not in the link, nor its call', async () => {
      const { owner, conversation, env } = await conversationWithTurns({ pending: true });
      const created = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: true, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      expect(created.url).toMatch(/^http:\/\/localhost:3000\/share\/[A-Za-z0-9_-]{43}$/);
      const view = await openShare(rt, tokenOf(created.url), null, null);
      const texts = view.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
      expect(texts).toEqual(['first question', 'Let me echo it.', 'The echo came back.', 'second question', 'Second answer.']);
      expect(view.toolCalls.map((c) => c.toolUseId)).toEqual(['tu_1']);
      expect(JSON.stringify(view)).not.toContain('pending-call-arg');
      expect(JSON.stringify(view)).not.toContain('pending_approval');
      // No message carries a tool_result block, and no tool_use its input: the card says what is shown.
      expect(view.messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result')).toEqual([]);
      expect(view.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_use')).toMatchObject({ input: {} });
      // With details included the card has the arguments and the result.
      expect(view.toolCalls[0]).toMatchObject({ detailsHidden: false, input: { message: SECRET }, status: 'succeeded' });
      expect(JSON.stringify(view.toolCalls[0]!.result)).toContain(SECRET);
      await env.close();
    });

    it('hides tool arguments and results unless the owner includes them, and carries nothing of the owner’s account', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const { url } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      const view = await openShare(rt, tokenOf(url), null, null);
      const json = JSON.stringify(view);
      expect(json).not.toContain(SECRET);
      expect(json).not.toContain(owner.id);
      expect(json).not.toContain(owner.email);
      expect(json).not.toContain('fixture-server'); // the server's id
      expect(json).not.toContain('127.0.0.1'); // its URL
      const [card] = view.toolCalls;
      expect(card).toMatchObject({ detailsHidden: true, input: {}, result: null, server: 'Fixture', tool: 'echo', status: 'succeeded' });
      expect(card).not.toHaveProperty('argsHash');
      expect(card).not.toHaveProperty('allowForSession');
      // The owner's own conversation does hold it (the check above could fail).
      const [stored] = await listConversationToolCalls(h.db, conversation.id);
      expect(JSON.stringify(stored!.input)).toContain(SECRET);
      await env.close();
    });

    it('keeps its snapshot while the owner chats on, until they move it; then it says when', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const { url, link } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      expect(link).toMatchObject({ messageCount: 5, newerMessages: 0, updated: false });
      const before = await openShare(rt, tokenOf(url), null, null);
      const more = await toolEngine(h, { script: [{ blocks: [text('Third answer.')] }] });
      await startRun(more.deps, { conversationId: conversation.id, userId: owner.id, sessionId: null, text: 'third question' });
      await more.deps.idle();
      expect(await openShare(rt, tokenOf(url), null, null)).toEqual(before);
      const [listed] = await listConversationShares(rt, owner.id, conversation.id);
      expect(listed).toMatchObject({ messageCount: 5, newerMessages: 2 });

      const moved = await updateShareSnapshot(rt, owner.id, link.id);
      expect(moved).toMatchObject({ messageCount: 7, newerMessages: 0, updated: true });
      const after = await openShare(rt, tokenOf(url), null, null);
      expect(after.messages.map((m) => m.content.find((b) => b.type === 'text'))).toContainEqual({ type: 'text', text: 'Third answer.' });
      expect(after.updatedAt).toBe(after.snapshotAt);
      expect(Date.parse(after.snapshotAt)).toBeGreaterThan(Date.parse(before.snapshotAt));
      await Promise.all([env.close(), more.close()]);
    });

    it('stores only a hash of the token; a revoked, expired or deleted link is not found, all alike', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const options = { includeToolDetails: false, audience: 'anyone', expiresIn: '7d' } as const;
      const a = await createShare(rt, owner.id, conversation.id, options, ORIGIN);
      const [row] = await h.db.select().from(shareLinks).where(eq(shareLinks.id, a.id));
      expect(row!.tokenHash).toBe(hashShareToken(tokenOf(a.url)));
      expect(JSON.stringify(row)).not.toContain(tokenOf(a.url));
      expect(JSON.stringify(await listUserShares(rt, owner.id))).not.toContain(tokenOf(a.url));
      expect(a.link.expiresAt).not.toBeNull();

      await revokeShare(rt, owner.id, a.id);
      const revoked = await rejection(openShare(rt, tokenOf(a.url), null, null));
      expect(revoked.code).toBe('not_found:share');

      const b = await createShare(rt, owner.id, conversation.id, options, ORIGIN);
      await h.db
        .update(shareLinks)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(shareLinks.id, b.id));
      const expired = await rejection(openShare(rt, tokenOf(b.url), null, null));
      expect(expired.message).toBe(revoked.message);
      expect((await listUserShares(rt, owner.id)).find((l) => l.id === b.id)).toMatchObject({ expired: true });

      const c = await createShare(rt, owner.id, conversation.id, options, ORIGIN);
      expect((await openShare(rt, tokenOf(c.url), null, null)).title).toBeTruthy();
      await deleteConversation(h.db, owner.id, conversation.id);
      expect((await rejection(openShare(rt, tokenOf(c.url), null, null))).message).toBe(revoked.message);
      expect(await listUserShares(rt, owner.id)).toEqual([]);
      expect((await rejection(openShare(rt, 'not a token', null, null))).code).toBe('not_found:share');
      await env.close();
    });

    it('asks a signed-out reader of a signed-in-only link to sign in', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const { url } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: false, audience: 'signed_in', expiresIn: 'never' },
        ORIGIN,
      );
      expect((await rejection(openShare(rt, tokenOf(url), null, null))).code).toBe('unauthorized:share');
      const reader = await newUser('reader');
      expect((await openShare(rt, tokenOf(url), { userId: reader.id }, null)).audience).toBe('signed_in');
      await env.close();
    });

    it('another person can neither list, move nor revoke the owner’s links', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const { id } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      const other = await newUser('other');
      expect((await rejection(listConversationShares(rt, other.id, conversation.id))).code).toBe('not_found:conversation');
      expect(await listUserShares(rt, other.id)).toEqual([]);
      expect((await rejection(updateShareSnapshot(rt, other.id, id))).code).toBe('not_found:share');
      expect((await rejection(revokeShare(rt, other.id, id))).code).toBe('not_found:share');
      expect(await listUserShares(rt, owner.id)).toHaveLength(1);
      await env.close();
    });

    it('forks into the reader’s account: what the link shows, hidden results stubbed, the taint, no grants; it continues', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const { url } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      const reader = await newUser('reader');
      const { conversationId } = await forkShare(rt, tokenOf(url), { userId: reader.id, address: null });

      const fork = (await getConversation(h.db, reader.id, conversationId))!;
      expect(fork.forkedFrom).toMatchObject({ v: 1, toolDetailsHidden: true, title: 'first question' });
      expect(fork.title).toBe('first question');
      // The owner's conversation was tainted by the untrusted server's result: so is the copy.
      expect(fork.tainted).toMatchObject({ serverName: 'Fixture', source: expect.any(String) });
      const copied = await listMessages(h.db, conversationId);
      const json = JSON.stringify(copied);
      expect(json).not.toContain(SECRET);
      expect(json).toContain(HIDDEN_RESULT_TEXT);
      // Every tool_use keeps its tool_result in the next message: the copy can be sent as is.
      const history = toMessageParams(copied);
      history.forEach((m, i) => {
        const uses = Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use') : [];
        const next = history[i + 1];
        for (const u of uses) {
          expect(
            Array.isArray(next?.content) &&
              next.content.some((b) => b.type === 'tool_result' && b.tool_use_id === (u as { id: string }).id),
          ).toBe(true);
        }
      });
      const [call] = await listConversationToolCalls(h.db, conversationId);
      expect(call).toMatchObject({ userId: reader.id, status: 'succeeded', input: {}, serverId: null, serverName: 'Fixture' });
      expect(call!.decision?.by).not.toBe(owner.id);
      expect(await h.db.select().from(toolGrants).where(eq(toolGrants.conversationId, conversationId))).toEqual([]);
      // The owner's conversation is untouched.
      expect(await listMessages(h.db, conversation.id)).toHaveLength(copied.length);

      // The reader chats on: the model gets the copied history, stubs included.
      const next = await toolEngine(h, { script: [{ blocks: [text('Continuing.')] }] });
      await startRun(next.deps, { conversationId, userId: reader.id, sessionId: null, text: 'and now?' });
      await next.deps.idle();
      const sent = JSON.stringify(next.model.requests[0]!.body.messages);
      expect(sent).toContain(HIDDEN_RESULT_TEXT);
      expect(sent).not.toContain(SECRET);
      expect((await listMessages(h.db, conversationId)).at(-1)!.content).toEqual([{ type: 'text', text: 'Continuing.' }]);
      await Promise.all([env.close(), next.close()]);
    });

    it('a fork of a link with tool details keeps the arguments and results', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const { url } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: true, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      const reader = await newUser('reader');
      const { conversationId } = await forkShare(rt, tokenOf(url), { userId: reader.id, address: null });
      expect(JSON.stringify(await listMessages(h.db, conversationId))).toContain(SECRET);
      const [call] = await listConversationToolCalls(h.db, conversationId);
      expect(call!.input).toEqual({ message: SECRET });
      await env.close();
    });

    it('a fork of an App call shows its text result and the static note, never a live view', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      const [original] = await listConversationToolCalls(h.db, conversation.id);
      // The echo as an App call: its tool had declared a view (MCP Apps).
      await h.db.update(toolCalls).set({ viewUri: 'ui://fixture/echo.html' }).where(eq(toolCalls.id, original!.id));
      const { url } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: true, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      const reader = await newUser('reader');
      const { conversationId } = await forkShare(rt, tokenOf(url), { userId: reader.id, address: null });
      const [copy] = await listConversationToolCalls(h.db, conversationId);
      const card = toToolCallView(copy!);
      expect(card).toMatchObject({ status: 'succeeded', hasView: true, viewCopy: true, viewsOff: false });
      expect(JSON.stringify(card.result)).toContain(SECRET);
      const html = renderToStaticMarkup(createElement(ToolCallCard, { call: card }));
      expect(html).toContain('Interactive view — open in Switchboard');
      expect(html).not.toContain('app-view"');
      // The owner's own call still has its live view.
      const [mine] = await listConversationToolCalls(h.db, conversation.id);
      expect(toToolCallView(mine!)).toMatchObject({ hasView: true, viewCopy: false });
      await env.close();
    });

    it('never carries the owner’s instructions: not in the shared view, not in a fork, not to the reader’s model', async () => {
      const { owner, conversation, env } = await conversationWithTurns();
      await setUserInstructions(h.db, owner.id, 'OWNER-PERSONAL: I am the owner, born in 1970.');
      await setConversationInstructions(h.db, owner.id, conversation.id, 'OWNER-CONVERSATION: keep this private.');
      const { url } = await createShare(
        rt,
        owner.id,
        conversation.id,
        { includeToolDetails: true, audience: 'anyone', expiresIn: 'never' },
        ORIGIN,
      );
      const shared = JSON.stringify(await openShare(rt, tokenOf(url), null, null));
      expect(shared).toContain('The echo came back.');
      expect(shared).not.toMatch(/OWNER-(PERSONAL|CONVERSATION)/);

      const reader = await newUser('reader');
      await setUserInstructions(h.db, reader.id, 'Reader here.');
      const { conversationId } = await forkShare(rt, tokenOf(url), { userId: reader.id, address: null });
      expect((await getConversation(h.db, reader.id, conversationId))!.instructions).toBeNull();
      expect(JSON.stringify(await listMessages(h.db, conversationId))).not.toMatch(/OWNER-/);
      // The reader's turn in the fork: their own instructions, none of the owner's.
      const next = await toolEngine(h, { script: [{ blocks: [text('Continuing.')] }] });
      await startRun(next.deps, { conversationId, userId: reader.id, sessionId: null, text: 'and now?' });
      await next.deps.idle();
      const system = next.model.requests[0]!.body.system;
      expect(JSON.stringify(system)).not.toMatch(/OWNER-/);
      expect(system).toEqual([
        { type: 'text', text: DEFAULT_SYSTEM_PROMPT },
        {
          type: 'text',
          text: expect.stringContaining('<personal_instructions>\nReader here.\n</personal_instructions>'),
          cache_control: { type: 'ephemeral' },
        },
      ]);
      await Promise.all([env.close(), next.close()]);
    });

    it('limits lookups per client: a signed-in reader, an address behind a trusted proxy, and everyone else together', async () => {
      vi.stubEnv('SHARE_LOOKUPS_PER_MINUTE', '3');
      vi.stubEnv('SHARE_UNIDENTIFIED_LOOKUPS_PER_MINUTE', '1000');
      try {
        const { owner, conversation, env } = await conversationWithTurns();
        const { url } = await createShare(
          rt,
          owner.id,
          conversation.id,
          { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
          ORIGIN,
        );
        const reader = await newUser('reader');
        for (let i = 0; i < 3; i++) await rejection(openShare(rt, 'y'.repeat(43), { userId: reader.id }, null));
        const limited = await rejection(openShare(rt, tokenOf(url), { userId: reader.id }, null));
        expect(limited.code).toBe('rate_limited:share');
        expect(limited.message).toMatch(/at most 3/);
        // Past the limit of failed lookups, the limit is checked before the lookup.
        for (let i = 0; i < 3; i++) await rejection(openShare(rt, 'x'.repeat(43), null, '203.0.113.9'));
        expect((await rejection(openShare(rt, tokenOf(url), null, '203.0.113.9'))).code).toBe('rate_limited:share');
        // Others are not held back.
        expect((await openShare(rt, tokenOf(url), null, '203.0.113.10')).title).toBeTruthy();
        expect((await openShare(rt, tokenOf(url), null, null)).title).toBeTruthy();
        await env.close();
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('counts failed lookups only: malformed tokens touch no bucket, and reading a real link uses up nothing', async () => {
      vi.stubEnv('SHARE_LOOKUPS_PER_MINUTE', '2');
      vi.stubEnv('SHARE_UNIDENTIFIED_LOOKUPS_PER_MINUTE', '2');
      await h.db.delete(rateLimits).where(like(rateLimits.key, 'share:%'));
      try {
        const { owner, conversation, env } = await conversationWithTurns();
        const { url } = await createShare(
          rt,
          owner.id,
          conversation.id,
          { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
          ORIGIN,
        );
        // A flood of malformed tokens (wrong length, wrong alphabet) is a 404 each, and counts nothing.
        for (const bad of ['AAAA', 'A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}/`]) {
          for (let i = 0; i < 5; i++) expect((await rejection(openShare(rt, bad, null, null))).code).toBe('not_found:share');
        }
        expect(await h.db.select().from(rateLimits).where(like(rateLimits.key, 'share:%'))).toEqual([]);
        // Every signed-out reader shares one bucket, and successful reads do not fill it.
        for (let i = 0; i < 10; i++) expect((await openShare(rt, tokenOf(url), null, null)).title).toBeTruthy();
        for (let i = 0; i < 5; i++) expect((await openShare(rt, tokenOf(url), null, '203.0.113.20')).title).toBeTruthy();
        // Well-formed tokens that open nothing are what counts.
        for (let i = 0; i < 2; i++) expect((await rejection(openShare(rt, 'z'.repeat(43), null, null))).code).toBe('not_found:share');
        expect((await rejection(openShare(rt, 'z'.repeat(43), null, null))).code).toBe('rate_limited:share');
        await env.close();
      } finally {
        vi.unstubAllEnvs();
      }
    });
  });
}
