import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getConversation } from '@/db/queries/conversations';
import { insertHistorySummary, readHistory } from '@/db/queries/history-summaries';
import { appendMessage, listMessages, setActiveLeaf } from '@/db/queries/messages';
import { getLatestRun } from '@/db/queries/runs';
import { listConversationToolCalls, setViewContext } from '@/db/queries/tool-calls';
import { decideCall } from '@/lib/agent/decide';
import { toMessageParams } from '@/lib/agent/history';
import type { ConnectDeps } from '@/lib/mcp/connection';
import type { ModelConfig } from '@/lib/model/client';
import { createShare, forkShare, listConversationShares, openShare } from '@/lib/share/service';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { conversationWithRun, userAndConversation } from '@/test/engine-harness';
import type { RecordedRequest, ScriptedReply } from '@/test/fixtures/scripted-model';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { regenerate } from './branches';
import type { ChatRuntime } from './runtime';
import { sendMessage, showBranch, view } from './service';

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

/** Every tool_use is answered by a tool_result in the next user message, in order; roles alternate. */
function expectValidHistory(history: Anthropic.MessageParam[]) {
  history.forEach((m, i) => {
    expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant');
    const uses = (m.content as Block[]).filter((b) => b.type === 'tool_use').map((b) => b.id);
    if (uses.length) {
      const results = (history[i + 1]!.content as Block[]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
      expect(results).toEqual(uses);
    }
  });
}

/** The words of a request's messages, in order (tool blocks by their kind): what the model was sent. */
function wordsOf(req: RecordedRequest): string[] {
  return req.body.messages.flatMap((m) =>
    (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Block[])).map((b) =>
      b.type === 'text' ? `${m.role}: ${String(b.text)}` : `${m.role}: ${b.type}`,
    ),
  );
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`edit and regenerate, with branches, on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    /** The chat use-cases over the engine, a scripted model (recording every request) and the fixture MCP server. */
    async function setup(script: (ScriptedReply | ((req: RecordedRequest) => ScriptedReply))[]) {
      const env = await toolEngine(h, { script });
      const rt: ChatRuntime = {
        handle: h,
        engine: env.deps,
        modelConfig: { model: 'claude-test' } as ModelConfig,
        models: { list: async () => ({ models: [], default: 'claude-test', error: null }), listedLimits: () => null },
        tools: { host: env.deps.tools!, connectDeps: {} as ConnectDeps },
      };
      const { user, conversation } = await userAndConversation(h);
      const session = { userId: user.id, sessionId: 'session-1' };
      const id = conversation.id;
      return {
        env,
        rt,
        user,
        id,
        session,
        async send(words: string, parentId?: string | null) {
          await sendMessage(rt, session, id, words, parentId === undefined ? {} : { parentId });
          await env.deps.idle();
        },
        async again(messageId: string) {
          await regenerate(rt, session, id, messageId);
          await env.deps.idle();
        },
        view: () => view(rt, user.id, id),
        lastRequest: () => env.model.requests.at(-1)!,
      };
    }

    it('an edit starts a branch; the model gets only that branch; switching back shows the first one with ‹ 1/2 ›', async () => {
      const t = await setup([{ blocks: [text('A1')] }, { blocks: [text('A1 edited')] }, { blocks: [text('A2')] }]);
      await t.send('Q1');
      const first = await t.view();
      expect(first.messages.map((m) => m.content)).toEqual([[text('Q1')], [text('A1')]]);
      const [q1, a1] = first.messages;
      expect(q1!.parentId).toBeNull();
      expect(a1!.parentId).toBe(q1!.id);
      expect(q1!.branch).toBeUndefined();

      // Editing the first message: its parent (null) is the new one's.
      await t.send('Q1, better', q1!.parentId);
      expect(wordsOf(t.lastRequest())).toEqual(['user: Q1, better']);
      const edited = await t.view();
      expect(edited.messages.map((m) => m.content)).toEqual([[text('Q1, better')], [text('A1 edited')]]);
      expect(edited.messages[0]!.branch).toEqual({ index: 1, count: 2, siblingIds: [q1!.id, edited.messages[0]!.id] });
      expect(edited.activeLeafId).toBe(edited.messages[1]!.id);

      // The next message follows the active branch, and the model still sees only it.
      await t.send('Q2');
      expect(wordsOf(t.lastRequest())).toEqual(['user: Q1, better', 'assistant: A1 edited', 'user: Q2']);

      // ‹ 1/2 ›: one PUT with the sibling's id; it is not a leaf, so its newest leaf is shown.
      const back = await showBranch(t.rt, t.user.id, t.id, edited.messages[0]!.branch!.siblingIds[0]!);
      expect(back.leafId).toBe(a1!.id);
      expect(back.resolvedFrom).toBe(q1!.id);
      expect(back.conversation.messages.map((m) => m.id)).toEqual([q1!.id, a1!.id]);
      expect(back.conversation.messages[0]!.branch).toMatchObject({ index: 0, count: 2 });
      // And forward again lands on the newest leaf of the other branch (after Q2's answer).
      const forward = await showBranch(t.rt, t.user.id, t.id, edited.messages[0]!.id);
      expect(forward.conversation.messages.map((m) => m.content)).toEqual([
        [text('Q1, better')],
        [text('A1 edited')],
        [text('Q2')],
        [text('A2')],
      ]);
      await t.env.close();
    });

    /** What a view said, as the card's bridge stores it (lib/chat/view-context.ts), on the conversation's echo call. */
    async function viewSays(id: string, words: string) {
      const echo = (await listConversationToolCalls(h.db, id)).find((c) => c.tool === 'echo')!;
      await setViewContext(h.db, echo.id, { v: 1, at: new Date().toISOString(), text: words });
      return echo;
    }
    const timesSaid = (req: RecordedRequest, words: string) => JSON.stringify(req.body.messages).split(words).length - 1;

    it('a view’s context follows the branch: owed again on a sibling path that never saw it, once per path', async () => {
      const t = await setup([
        { blocks: [toolUse('tu_e', 'fx__echo', { message: 'rows' })] },
        { blocks: [text('Echoed.')] },
        { blocks: [text('You picked row 3.')] },
        { blocks: [text('Row 3, again.')] },
        { blocks: [text('Still row 3.')] },
      ]);
      await t.send('show the rows');
      await viewSays(t.id, 'The person picked row 3.');
      await t.send('what did I pick?');
      expect(timesSaid(t.lastRequest(), 'The person picked row 3.')).toBe(1);
      const first = await t.view();
      const [views, asked] = first.messages.slice(-3);
      expect(views!.origin?.kind).toBe('view_context');
      expect(asked).toMatchObject({ role: 'user', parentId: views!.id, content: [text('what did I pick?')] });

      // A sibling of the views' message and the question (branching where that turn began): it never
      // saw the context, so it is owed there too — it was "before the latest run" all the same.
      await t.send('which row?', views!.parentId);
      expect(timesSaid(t.lastRequest(), 'The person picked row 3.')).toBe(1);
      expect(wordsOf(t.lastRequest()).at(-1)).toBe('user: which row?');
      // Once per path: the next message on it does not bring it again.
      await t.send('sure?');
      expect(timesSaid(t.lastRequest(), 'The person picked row 3.')).toBe(1);
      await t.env.close();
    });

    it('a view’s context left on an abandoned branch is not owed to a new one that does not hold its call', async () => {
      const t = await setup([
        { blocks: [toolUse('tu_e', 'fx__echo', { message: 'rows' })] },
        { blocks: [text('Echoed.')] },
        { blocks: [text('Hello again.')] },
        { blocks: [text('You picked row 3.')] },
      ]);
      await t.send('show the rows');
      const q1 = (await t.view()).messages[0]!;
      await viewSays(t.id, 'The person picked row 3.');
      // An edit of the first message: the echo's card is not on the new path.
      await t.send('hello', q1.parentId);
      expect(timesSaid(t.lastRequest(), 'The person picked row 3.')).toBe(0);
      expect((await listMessages(h.db, t.id)).filter((m) => m.origin?.kind === 'view_context')).toHaveLength(0);
      // Back on the branch that holds the call, the context is still owed there.
      await showBranch(t.rt, t.user.id, t.id, q1.id);
      await t.send('and now?');
      expect(timesSaid(t.lastRequest(), 'The person picked row 3.')).toBe(1);
      await t.env.close();
    });

    it('an edit that brings a view’s context keeps its ‹ 2/2 › on the person’s message; the views’ note carries none', async () => {
      const t = await setup([
        { blocks: [toolUse('tu_e', 'fx__echo', { message: 'rows' })] },
        { blocks: [text('Echoed.')] },
        { blocks: [text('First answer.')] },
        { blocks: [text('Row 3.')] },
        { blocks: [text('Row 4.')] },
      ]);
      await t.send('show the rows');
      await t.send('what now?');
      const before = await t.view();
      const asked = before.messages.at(-2)!;
      expect(asked.branch).toBeUndefined();

      // The view speaks, then the person edits their question: the edit brings the context.
      await viewSays(t.id, 'The person picked row 3.');
      await t.send('what did I pick?', asked.parentId);
      const edited = await t.view();
      const [note, question] = edited.messages.slice(-3);
      expect(note!.origin?.kind).toBe('view_context');
      expect(note!.branch).toBeUndefined();
      expect(question!.content).toEqual([text('what did I pick?')]);
      expect(question!.branch).toEqual({ index: 1, count: 2, siblingIds: [asked.id, note!.id] });

      // ‹ 1/2 › shows the first question with its own place; › comes back to the edit.
      const back = await showBranch(t.rt, t.user.id, t.id, question!.branch!.siblingIds[0]!);
      expect(back.conversation.messages.at(-2)!.branch).toEqual({ index: 0, count: 2, siblingIds: [asked.id, note!.id] });

      // Editing the question that followed the views' message (its parent is that message) branches
      // where the turn began, beside it: no views' message nests under another, the context comes again.
      await showBranch(t.rt, t.user.id, t.id, note!.id);
      await viewSays(t.id, 'The person picked row 4.');
      await t.send('and which now?', question!.parentId);
      expect(timesSaid(t.lastRequest(), 'The person picked row 3.')).toBe(0);
      expect(timesSaid(t.lastRequest(), 'The person picked row 4.')).toBe(1);
      const again = await t.view();
      const [note2, question2] = again.messages.slice(-3);
      expect(note2!.parentId).toBe(note!.parentId);
      expect(question2!.branch).toMatchObject({ index: 2, count: 3 });
      await t.env.close();
    });

    it('regenerating an answer adds a sibling; the model gets the path up to the question only', async () => {
      const t = await setup([{ blocks: [text('A1')] }, { blocks: [text('B1')] }, { blocks: [text('B1 again')] }]);
      await t.send('Q1');
      await t.send('Q2');
      const before = await t.view();
      const b1 = before.messages[3]!;
      await t.again(b1.id);
      expect(wordsOf(t.lastRequest())).toEqual(['user: Q1', 'assistant: A1', 'user: Q2']);
      const after = await t.view();
      expect(after.messages.map((m) => m.content)).toEqual([[text('Q1')], [text('A1')], [text('Q2')], [text('B1 again')]]);
      expect(after.messages[3]!.parentId).toBe(before.messages[2]!.id);
      expect(after.messages[3]!.branch).toEqual({ index: 1, count: 2, siblingIds: [b1.id, after.messages[3]!.id] });
      expect(after.lastRun?.status).toBe('completed');
      // Every message is kept; the view shows one branch.
      expect(await listMessages(h.db, t.id)).toHaveLength(5);
      await t.env.close();
    });

    it('another answer failing before its first word leaves the question unanswered, its earlier answer one step away', async () => {
      const t = await setup([{ blocks: [text('A1')] }, { status: 400, error: { type: 'invalid_request_error', message: 'refused' } }]);
      await t.send('Q1');
      const [q1, a1] = (await t.view()).messages;
      expect(q1!.answersElsewhere).toBeUndefined();
      await t.again(a1!.id);
      const failed = await t.view();
      expect(failed.lastRun?.status).toBe('failed');
      expect(failed.messages.map((m) => m.id)).toEqual([q1!.id]);
      expect(failed.messages[0]!.answersElsewhere).toBe(1);
      // What the page's "Show the earlier answer" sends: the newest branch beneath the question.
      const shown = await showBranch(t.rt, t.user.id, t.id, q1!.id);
      expect(shown.conversation.messages.map((m) => m.id)).toEqual([q1!.id, a1!.id]);
      expect(shown.conversation.messages[0]!.answersElsewhere).toBeUndefined();
      await t.env.close();
    });

    it('refuses by field: a question to regenerate, a message of another conversation or user, a parent that asked for tools', async () => {
      const t = await setup([
        { blocks: [text('A1')] },
        { blocks: [toolUse('tu_e', 'fx__echo', { message: 'hi' })] },
        { blocks: [text('echoed')] },
        { blocks: [text('other')] },
      ]);
      await t.send('Q1');
      const [q1] = (await t.view()).messages;
      await expect(regenerate(t.rt, t.session, t.id, q1!.id)).rejects.toMatchObject({
        status: 400,
        field: 'messageId',
        message: expect.stringContaining('only an answer (an assistant message) can be regenerated'),
      });
      await t.send('echo please');
      const asked = (await t.view()).messages.find((m) => m.content.some((b) => b.type === 'tool_use'))!;
      await expect(sendMessage(t.rt, t.session, t.id, 'after the call', { parentId: asked.id })).rejects.toMatchObject({
        status: 400,
        field: 'parentId',
        message: expect.stringContaining('its tool results must follow it'),
      });
      // A views' message stands for its own parent, which is checked the same: one after that answer is refused too.
      await setActiveLeaf(h.db, t.id, asked.id);
      const views = await appendMessage(h.db, {
        conversationId: t.id,
        role: 'user',
        content: [text('a view said')],
        origin: { v: 1, kind: 'view_context', views: [] },
      });
      await expect(sendMessage(t.rt, t.session, t.id, 'after the views', { parentId: views.id })).rejects.toMatchObject({
        status: 400,
        field: 'parentId',
        message: expect.stringContaining('its tool results must follow it'),
      });
      // Another person's conversation: its messages read as not found here, and theirs are not ours.
      const other = await setup([{ blocks: [text('yours')] }]);
      await other.send('theirs');
      const theirs = (await other.view()).messages[0]!;
      await expect(sendMessage(t.rt, t.session, t.id, 'x', { parentId: theirs.id })).rejects.toMatchObject({
        status: 404,
        field: 'parentId',
      });
      await expect(regenerate(t.rt, t.session, t.id, theirs.id)).rejects.toMatchObject({ status: 404, field: 'messageId' });
      await expect(showBranch(t.rt, t.user.id, t.id, theirs.id)).rejects.toMatchObject({ status: 404, field: 'leafId' });
      await expect(showBranch(t.rt, t.user.id, other.id, theirs.id)).rejects.toMatchObject({ status: 404 });
      await t.env.close();
      await other.env.close();
    });

    it('a pending approval on branch A: edit, regenerate and switch are 409s that say so, and the approval stays as it was', async () => {
      const t = await setup([
        { blocks: [text('A1')] },
        { blocks: [text('A1 edited')] },
        { blocks: [text('Counting.'), toolUse('tu_c', 'fx__counter')] },
        { blocks: [text('Counted.')] },
      ]);
      await t.send('Q1');
      const [q1, a1] = (await t.view()).messages;
      await t.send('Q1 edited', null); // branch B
      const branchB = (await t.view()).messages;
      await showBranch(t.rt, t.user.id, t.id, a1!.id); // back to A
      await t.send('count'); // pauses for approval, on A
      expect((await getLatestRun(h.db, t.id))!.status).toBe('awaiting_approval');
      const [pending] = await listConversationToolCalls(h.db, t.id);
      const leafBefore = (await getConversation(h.db, t.user.id, t.id))!.activeLeafId;

      const says = expect.stringContaining('waiting for you to approve or deny a tool call');
      await expect(showBranch(t.rt, t.user.id, t.id, branchB[0]!.id)).rejects.toMatchObject({ status: 409, message: says });
      await expect(sendMessage(t.rt, t.session, t.id, 'Q1 again', { parentId: null })).rejects.toMatchObject({
        status: 409,
        message: says,
      });
      await expect(regenerate(t.rt, t.session, t.id, a1!.id)).rejects.toMatchObject({ status: 409, message: says });
      expect(await listConversationToolCalls(h.db, t.id)).toEqual([pending]);
      expect((await getConversation(h.db, t.user.id, t.id))!.activeLeafId).toBe(leafBefore);
      expect((await t.view()).toolCalls.map((c) => c.status)).toEqual(['pending_approval']);

      // Decided, the turn finishes on A; B shows none of it, and A still has its call.
      await decideCall(t.env.deps, { userId: t.user.id, toolCallId: pending!.id, argsHash: pending!.argsHash, decision: 'allow_once' });
      await t.env.deps.idle();
      expect((await getLatestRun(h.db, t.id))!.status).toBe('completed');
      const onB = await showBranch(t.rt, t.user.id, t.id, branchB[0]!.id);
      expect(onB.conversation.toolCalls).toEqual([]);
      expect(onB.conversation.messages.map((m) => m.id)).toEqual(branchB.map((m) => m.id));
      const onA = await showBranch(t.rt, t.user.id, t.id, q1!.id);
      expect(onA.conversation.toolCalls.map((c) => [c.id, c.status])).toEqual([[pending!.id, 'succeeded']]);
      expect(onA.conversation.messages.at(-1)!.content).toEqual([text('Counted.')]);
      await t.env.close();
    });

    it('a regenerated turn asks again before a tool runs: nothing re-executes silently', async () => {
      const t = await setup([
        { blocks: [toolUse('tu_c', 'fx__counter')] },
        { blocks: [text('Counted.')] },
        { blocks: [toolUse('tu_c2', 'fx__counter')] },
        { blocks: [text('Not counted.')] },
      ]);
      await t.send('count');
      const [first] = await listConversationToolCalls(h.db, t.id);
      await decideCall(t.env.deps, { userId: t.user.id, toolCallId: first!.id, argsHash: first!.argsHash, decision: 'allow_once' });
      await t.env.deps.idle();
      expect(t.env.fixture.state.counter).toBe(1);
      const asked = (await t.view()).messages[1]!;
      expect(asked.content.some((b) => b.type === 'tool_use')).toBe(true);

      // The whole turn again, from its first answer: the new call waits for the person like any other.
      await t.again(asked.id);
      expect((await getLatestRun(h.db, t.id))!.status).toBe('awaiting_approval');
      expect(t.env.fixture.state.counter).toBe(1);
      const onNewBranch = await t.view();
      expect(onNewBranch.toolCalls.map((c) => c.status)).toEqual(['pending_approval']);
      expect(onNewBranch.toolCalls[0]!.id).not.toBe(first!.id);
      const second = (await listConversationToolCalls(h.db, t.id)).find((c) => c.id !== first!.id)!;
      await decideCall(t.env.deps, { userId: t.user.id, toolCallId: second.id, argsHash: second.argsHash, decision: 'deny' });
      await t.env.deps.idle();
      expect(t.env.fixture.state.counter).toBe(1);
      expect((await t.view()).messages.at(-1)!.content).toEqual([text('Not counted.')]);
      await t.env.close();
    });

    it('a running turn makes edit and switch 409s that say a turn is running', async () => {
      const t = await setup([]);
      // A run held by another instance, mid-step: no model is involved.
      const { user, conversation } = await conversationWithRun(h, 'running');
      const says = expect.stringContaining('a turn is running in this conversation');
      const anyId = '00000000-0000-4000-8000-000000000001';
      await expect(showBranch(t.rt, user.id, conversation.id, anyId)).rejects.toMatchObject({ status: 409, message: says });
      await expect(sendMessage(t.rt, { userId: user.id, sessionId: 's' }, conversation.id, 'x', { parentId: null })).rejects.toMatchObject({
        status: 409,
        message: says,
      });
      await t.env.close();
    });

    it('every branch is a valid history: a tool turn, its last step regenerated, an edit before it', async () => {
      const t = await setup([
        { blocks: [text('A1')] },
        { blocks: [text('Echoing.'), toolUse('tu_1', 'fx__echo', { message: 'one' })] },
        { blocks: [text('It said one.')] },
        { blocks: [text('It said one, again.')] },
        { blocks: [text('Q2 edited answer')] },
      ]);
      await t.send('Q1');
      await t.send('echo one');
      const path = (await t.view()).messages;
      const finalAnswer = path.at(-1)!;
      // The last step regenerated: its sibling follows the tool results, so the tool does not run again.
      await t.again(finalAnswer.id);
      expect(t.env.fixture.calls.filter((c) => c.name === 'echo')).toHaveLength(1);
      expect(wordsOf(t.lastRequest())).toEqual([
        'user: Q1',
        'assistant: A1',
        'user: echo one',
        'assistant: Echoing.',
        'assistant: tool_use',
        'user: tool_result',
      ]);
      await t.send('Q2 edited', path[1]!.id); // an edit of "echo one": after A1
      const all = await listMessages(h.db, t.id);
      const leaves = all.filter((m) => !all.some((c) => c.parentId === m.id));
      expect(leaves).toHaveLength(3);
      for (const leaf of leaves) {
        await showBranch(t.rt, t.user.id, t.id, leaf.id);
        const history = await readHistory(h.db, t.id);
        expect(history.messages.at(-1)!.id).toBe(leaf.id);
        expectValidHistory(toMessageParams(history.messages));
      }
      await t.env.close();
    });

    it('a summary applies only on the branch it summarized', async () => {
      const t = await setup([{ blocks: [text('A1')] }, { blocks: [text('A1 edited')] }]);
      await t.send('Q1');
      const [, a1] = (await t.view()).messages;
      await insertHistorySummary(h.db, {
        conversationId: t.id,
        throughSeq: (await t.view()).messages[1]!.seq,
        text: 'Q1 and A1',
        runId: null,
      });
      expect((await readHistory(h.db, t.id)).summary?.text).toBe('Q1 and A1');
      await t.send('Q1 edited', null);
      const onB = await readHistory(h.db, t.id);
      expect(onB.summary).toBeNull();
      expect(onB.messages.map((m) => m.content)).toEqual([[text('Q1 edited')], [text('A1 edited')]]);
      await showBranch(t.rt, t.user.id, t.id, a1!.id);
      const onA = await readHistory(h.db, t.id);
      expect(onA.summary?.text).toBe('Q1 and A1');
      expect(onA.messages).toEqual([]);
      await t.env.close();
    });

    it('a share keeps the branch it was made on; a fork copies that path', async () => {
      const t = await setup([{ blocks: [text('A1')] }, { blocks: [text('A1 edited')] }]);
      await t.send('Q1');
      const shareRt = { handle: h, modelConfig: { model: 'claude-test' } };
      const created = await createShare(
        shareRt,
        t.user.id,
        t.id,
        { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
        'http://x',
      );
      await t.send('Q1 edited', null);
      // What moving the link would show that it does not: the other branch's two messages.
      expect((await listConversationShares(shareRt, t.user.id, t.id)).map((l) => [l.messageCount, l.newerMessages])).toEqual([[2, 2]]);
      const token = created.url.split('/').at(-1)!;
      const shared = await openShare(shareRt, token, null, null);
      expect(shared.messages.map((m) => m.content)).toEqual([[text('Q1')], [text('A1')]]);
      // A second link now shows the edited branch; the first still shows its own.
      const second = await createShare(
        shareRt,
        t.user.id,
        t.id,
        { includeToolDetails: false, audience: 'anyone', expiresIn: 'never' },
        'http://x',
      );
      const secondShared = await openShare(shareRt, second.url.split('/').at(-1)!, null, null);
      expect(secondShared.messages.map((m) => m.content)).toEqual([[text('Q1 edited')], [text('A1 edited')]]);
      expect((await openShare(shareRt, token, null, null)).messages.map((m) => m.content)).toEqual([[text('Q1')], [text('A1')]]);
      // A fork of the first link: its branch, as one straight path whose leaf is its last message.
      const reader = await userAndConversation(h);
      const { conversationId } = await forkShare(shareRt, token, { userId: reader.user.id, address: null });
      const copied = await listMessages(h.db, conversationId);
      expect(copied.map((m) => m.content)).toEqual([[text('Q1')], [text('A1')]]);
      expect(copied[1]!.parentId).toBe(copied[0]!.id);
      expect(copied[0]!.parentId).toBeNull();
      expect((await getConversation(h.db, reader.user.id, conversationId))!.activeLeafId).toBe(copied[1]!.id);
      await t.env.close();
    });
  });
}
