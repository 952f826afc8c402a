import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listMessages, setActiveLeaf } from '@/db/queries/messages';
import { getRun } from '@/db/queries/runs';
import { getConversationTaint } from '@/db/queries/taint';
import { listConversationToolCalls, setViewContext } from '@/db/queries/tool-calls';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { decideCall } from './decide';
import { startRun } from './engine';
import { MAX_VIEWS_PER_TURN } from './view-context-turn';

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

/**
 * MCP Apps `ui/update-model-context`: what a view said goes before the model at the person's next
 * message, fenced as the server's and said to be its view's, once; it counts as the server's
 * content for the taint rule, so a write the grant would auto-approve is asked instead.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`a view's context at the next turn on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('is put before the model ahead of the person’s message, marked as the view’s, taints, and the next write is asked', async () => {
      const env = await toolEngine(h, {
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [
          { blocks: [toolUse('tu_e', 'fx__echo', { message: 'rows' })] },
          { blocks: [text('Here are the rows.')] },
          { blocks: [toolUse('tu_c', 'fx__counter')] },
          { blocks: [text('Not counted.')] },
          { blocks: [text('Fine.')] },
        ],
      });
      const { user, conversation } = await userAndConversation(h);
      const turn = async (words: string) => {
        const { run } = await startRun(env.deps, {
          conversationId: conversation.id,
          userId: user.id,
          sessionId: null,
          text: words,
          withViewContext: true,
        });
        await env.deps.idle();
        return run.id;
      };
      expect((await getRun(h.db, await turn('show the rows')))!.status).toBe('completed');
      expect(await getConversationTaint(h.db, conversation.id)).toBeNull();

      // The echo's view (as the card's bridge would) tells the model what the person picked; then the
      // person stops trusting the server's content.
      const [echo] = await listConversationToolCalls(h.db, conversation.id);
      await setViewContext(h.db, echo!.id, {
        v: 1,
        at: new Date().toISOString(),
        text: 'The person picked row 3.',
        structured: { row: 3 },
      });
      env.server.trustContent = false;

      const second = await turn('count it');
      const asked = env.model.requests[2]!.body.messages.at(-1)!;
      expect(asked.role).toBe('user');
      const said = (asked.content as Block[]).map((b) => String(b.text)).join('\n');
      expect(said).toContain('the interactive view of your earlier "fx__echo" call shared this for you');
      expect(said).toContain(
        '<tool_output server="Fixture" tool="echo (interactive view)">\nThe person picked row 3.\n{"row":3}\n</tool_output>',
      );
      expect(said.indexOf('The person picked row 3.')).toBeLessThan(said.indexOf('count it'));

      expect(await getConversationTaint(h.db, conversation.id)).toMatchObject({
        source: 'view_context',
        serverName: 'Fixture',
        tool: 'echo',
      });
      expect((await getRun(h.db, second))!.status).toBe('awaiting_approval');
      const counter = (await listConversationToolCalls(h.db, conversation.id)).find((c) => c.tool === 'counter')!;
      expect(counter.status).toBe('pending_approval');
      expect(counter.verdict?.reason).toContain('The conversation holds content from "Fixture"');
      await decideCall(env.deps, { userId: user.id, toolCallId: counter.id, decision: 'deny', argsHash: counter.argsHash });
      await env.deps.idle();
      expect(env.fixture.state.counter).toBe(0);

      // Stored with the turn, marked as the views' (the page shows it as theirs), and not put in again.
      const stored = await listMessages(h.db, conversation.id);
      expect(stored.filter((m) => m.origin?.kind === 'view_context')).toMatchObject([
        { role: 'user', origin: { kind: 'view_context', views: [{ toolCallId: echo!.id, serverName: 'Fixture', tool: 'echo' }] } },
      ]);
      await turn('thanks');
      const third = JSON.stringify(env.model.requests.at(-1)!.body.messages);
      expect(third.split('The person picked row 3.')).toHaveLength(2);
      await env.close();
    });

    it('a view’s mark is kept when the person’s message brings a mark of its own: none replaces another', async () => {
      const env = await toolEngine(h, {
        script: [
          { blocks: [toolUse('tu_e', 'fx__echo', { message: 'rows' })] },
          { blocks: [text('Echoed.')] },
          { blocks: [text('Read.')] },
        ],
      });
      const { user, conversation } = await userAndConversation(h);
      await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'show', withViewContext: true });
      await env.deps.idle();
      const [echo] = await listConversationToolCalls(h.db, conversation.id);
      await setViewContext(h.db, echo!.id, { v: 1, at: new Date().toISOString(), text: 'The person picked row 3.' });
      env.server.trustContent = false;
      // The message carries an untrusted resource too (lib/chat/compose.ts gives its mark as `taint`).
      const resource = { v: 1 as const, at: new Date().toISOString(), source: 'resource' as const, serverId: 'other', serverName: 'Other' };
      await startRun(env.deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'read this',
        taint: resource,
        withViewContext: true,
      });
      await env.deps.idle();
      // The views' message enters first, so its mark is the conversation's (the first mark is kept).
      expect(await getConversationTaint(h.db, conversation.id)).toMatchObject({ source: 'view_context', serverName: 'Fixture' });
      await env.close();
    });

    it('goes on the path it was read for: a branch switched while the turn opens does not move it', async () => {
      const env = await toolEngine(h, {
        script: [
          { blocks: [toolUse('tu_e', 'fx__echo', { message: 'rows' })] },
          { blocks: [text('Echoed.')] },
          { blocks: [text('Fine.')] },
        ],
      });
      const { user, conversation } = await userAndConversation(h);
      const send = (words: string) =>
        startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: words, withViewContext: true });
      await send('show');
      await env.deps.idle();
      const [echo] = await listConversationToolCalls(h.db, conversation.id);
      await setViewContext(h.db, echo!.id, { v: 1, at: new Date().toISOString(), text: 'The person picked row 3.' });
      const before = await listMessages(h.db, conversation.id);
      const leaf = before.at(-1)!;
      expect(leaf.content).toMatchObject([{ type: 'text', text: 'Echoed.' }]);
      // Another tab switches the branch (here: back to the first message) once the views' context was read.
      const serversFor = env.deps.tools!.serversFor.bind(env.deps.tools);
      env.deps.tools!.serversFor = async (userId) => {
        await setActiveLeaf(h.db, conversation.id, before[0]!.id);
        return serversFor(userId);
      };
      const { messages } = await send('and now?');
      await env.deps.idle();
      const [views, mine] = messages;
      expect(views).toMatchObject({ origin: { kind: 'view_context' }, parentId: leaf.id });
      expect(mine).toMatchObject({ role: 'user', parentId: views!.id });
      await env.close();
    });

    it('puts at most a turn’s share of views before the model, the newest, and names the rest as left out', async () => {
      const calls = Array.from({ length: MAX_VIEWS_PER_TURN + 2 }, (_, i) => toolUse(`tu_${i}`, 'fx__echo', { message: `m${i}` }));
      const env = await toolEngine(h, { script: [{ blocks: calls }, { blocks: [text('Echoed.')] }, { blocks: [text('Fine.')] }] });
      const { user, conversation } = await userAndConversation(h);
      const turn = async (words: string) => {
        await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: words, withViewContext: true });
        await env.deps.idle();
      };
      await turn('echo them all');
      const echoes = await listConversationToolCalls(h.db, conversation.id);
      expect(echoes).toHaveLength(MAX_VIEWS_PER_TURN + 2);
      // Each view says something, one after another: the first two are the oldest.
      for (const [i, call] of echoes.entries()) {
        await setViewContext(h.db, call.id, { v: 1, at: new Date(Date.now() + i).toISOString(), text: `view ${i} says hello` });
      }
      await turn('and now?');
      const said = JSON.stringify(env.model.requests.at(-1)!.body.messages);
      for (let i = 2; i < echoes.length; i++) expect(said).toContain(`view ${i} says hello`);
      expect(said).not.toContain('view 0 says hello');
      expect(said).not.toContain('view 1 says hello');
      expect(said).toContain('what the views of \\"fx__echo\\", \\"fx__echo\\" shared is left out');
      await env.close();
    });
  });
}
