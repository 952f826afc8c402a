import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listActivity } from '@/db/queries/audit';
import { listEventsAfter } from '@/db/queries/events';
import { getRun } from '@/db/queries/runs';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { startUrlStepServer } from '@/test/fixtures/url-step-server';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { answerInput } from './answer-input';
import { startRun } from './engine';

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

/**
 * URL-mode elicitation end to end (2026-07-28 `input_required`): a real server asks the person to
 * finish a step on its own loopback page; the call waits, is retried with the person's answer, and
 * ends with what the server says then. The person's answer is in the call's audit entry.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`URL-mode elicitation on ${kind}`, () => {
    let h: DbHandle;
    let pages: Awaited<ReturnType<typeof startUrlStepServer>>;
    beforeAll(async () => {
      h = await openTestDb(kind);
      pages = await startUrlStepServer();
    });
    afterAll(async () => {
      await pages?.close();
      await h?.close();
    });

    async function asked(args: Record<string, unknown> = {}) {
      const env = await toolEngine(h, {
        serverUrl: pages.url,
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [{ blocks: [toolUse('tu_u', 'fx__confirm_on_page', args)] }, { blocks: [text('Noted.')] }],
      });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await env.deps.idle();
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      return { env, user, runId: run.id, conversationId: conversation.id, call: call! };
    }

    const resultText = (env: Awaited<ReturnType<typeof toolEngine>>) =>
      JSON.stringify((env.model.requests.at(-1)!.body.messages.at(-1)!.content as Block[])[0]!.content);

    it('waits with the link stored; "finished" before the page is done asks again; after the page, resumes with the result', async () => {
      const { env, user, runId, conversationId, call } = await asked();
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_input');
      const link = call.inputRequests!.page!.params!;
      expect(link).toMatchObject({ mode: 'url', message: 'Confirm the transfer on the bank page, then come back.' });
      expect(link.url).toMatch(new RegExp(`^${pages.pageBase}/step/[0-9a-f]{12}$`));
      await expect(
        answerInput(env.deps, {
          userId: user.id,
          toolCallId: call.id,
          responses: { page: { action: 'accept', content: { x: 1 } } },
          round: call.version,
        }),
      ).rejects.toMatchObject({ kind: 'invalid', field: 'responses.page.content' });

      // Not finished on the page yet: the server asks again, and the call waits again.
      await answerInput(env.deps, { userId: user.id, toolCallId: call.id, responses: { page: { action: 'accept' } }, round: call.version });
      await env.deps.idle();
      const [again] = await listConversationToolCalls(h.db, conversationId);
      expect(again!.status).toBe('awaiting_input');
      expect(again!.inputRequests!.page!.params).toMatchObject({
        mode: 'url',
        url: link.url,
        message: expect.stringMatching(/not finished/),
      });
      // Each question's live event names its round: the row's version while it waits, as an answer must give it.
      const asks = (await listEventsAfter(h.db, conversationId, 0)).filter((e) => e.type === 'tool_call.input_requested');
      expect(asks.map((e) => (e.data as { toolCall: { inputRound: unknown } }).toolCall.inputRound)).toEqual([
        call.version,
        again!.version,
      ]);
      expect(again!.version).not.toBe(call.version);

      // The person finishes the step on the server's page. A click of "I've finished" sent for the first
      // question (another tab, a page not yet updated) is refused in words, and runs nothing.
      const page = await fetch(link.url!, { method: 'POST' });
      expect(await page.text()).toContain('Step finished');
      const stale = { userId: user.id, toolCallId: call.id, responses: { page: { action: 'accept' as const } }, round: call.version };
      await expect(answerInput(env.deps, stale)).rejects.toMatchObject({
        kind: 'conflict',
        field: 'round',
        message: expect.stringContaining('this answer is for an earlier question of fx__confirm_on_page; the server has asked again since'),
      });
      const [unmoved] = await listConversationToolCalls(h.db, conversationId);
      expect(unmoved).toMatchObject({ status: 'awaiting_input', version: again!.version });
      // Then says so, for the question on screen.
      await answerInput(env.deps, { ...stale, round: again!.version });
      await env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(resultText(env)).toMatch(/Step [0-9a-f]{12} was confirmed on the page\./);
      const [done] = await listConversationToolCalls(h.db, conversationId);
      expect(done!.status).toBe('succeeded');

      const [entry] = (await listActivity(h.db, user.id, { toolCallId: call.id }, 5)).map((r) => r.content);
      expect(entry).toMatchObject({
        outcome: 'succeeded',
        input: { by: user.id, answers: { page: { mode: 'url', action: 'accept', url: link.url } } },
      });
      await env.close();
    });

    it('a decline reaches the server, whose words end the call; the audit says declined', async () => {
      const { env, user, runId, call } = await asked();
      await answerInput(env.deps, {
        userId: user.id,
        toolCallId: call.id,
        responses: { page: { action: 'decline' } },
        round: call.version,
      });
      await env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(resultText(env)).toContain('The person declined the step; nothing was confirmed.');
      const [entry] = (await listActivity(h.db, user.id, { toolCallId: call.id }, 5)).map((r) => r.content);
      expect(entry).toMatchObject({ input: { answers: { page: { mode: 'url', action: 'decline' } } } });
      await env.close();
    });

    it('a link that is not a web page is never offered: the call fails with words naming the field and why', async () => {
      const { env, runId, call } = await asked({ link: 'javascript:alert(document.cookie)' });
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(call.status).toBe('errored');
      expect(call.inputRequests).toBeNull();
      const words = resultText(env);
      expect(words).toContain('asked the person to open a link Switchboard does not open');
      expect(words).toContain(
        'inputRequests.page.params.url: a \\"javascript:\\" link is not a web page (only https links are opened, or http on this machine)',
      );
      await env.close();
    });
  });
}
