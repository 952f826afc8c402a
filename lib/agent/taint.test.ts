import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getRun } from '@/db/queries/runs';
import { getConversationTaint } from '@/db/queries/taint';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { conversations } from '@/db/schema';
import { staticGrants, type ToolGrant } from '@/lib/consent/grant-source';
import { conversationTaint, TAINT_CONSEQUENCE } from '@/lib/consent/taint';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { startScriptedModel, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { loopbackFetch } from '@/test/loopback-fetch';
import { fixtureConfig, text, toolEngine, toolUse } from '@/test/tool-harness';

import { answerInput } from './answer-input';
import { decideCall } from './decide';
import { startRun } from './engine';

/**
 * Issue 9, "Taint, wider": a conversation is tainted once any text of an untrusted server has
 * entered the model's context — a result, a tool description or title offered to the model, an
 * elicitation message, progress text — and it is stored on the conversation, explained in words,
 * and read by the decision table at propose time.
 */
for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`taint on ${kind}`, () => {
    let h: DbHandle;
    let fixture: FixtureServer;
    beforeAll(async () => {
      h = await openTestDb(kind);
      fixture = await startFixtureServer();
    });
    afterAll(async () => {
      await fixture?.close();
      await h?.close();
    });

    async function start(env: { deps: ReturnType<typeof engineDeps> }) {
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await env.deps.idle();
      return { user, conversation, runId: run.id };
    }
    /** Forgets the stored mark, as if the conversation predated it: the next source must set it again. */
    const forgetMark = (conversationId: string) =>
      h.db.update(conversations).set({ tainted: null }).where(eq(conversations.id, conversationId));
    const storedMark = async (conversationId: string) =>
      (await h.db.select({ t: conversations.tainted }).from(conversations).where(eq(conversations.id, conversationId)))[0]!.t;

    /** Lets the untrusted fixture's single pending call run (untrusted tools always ask), after forgetting the mark. */
    async function approveAfterForgetting(env: { deps: ReturnType<typeof engineDeps> }, user: { id: string }, conversationId: string) {
      await forgetMark(conversationId);
      const [call] = await listConversationToolCalls(h.db, conversationId);
      expect(call!.status).toBe('pending_approval');
      await decideCall(env.deps, { userId: user.id, toolCallId: call!.id, decision: 'allow_once', argsHash: call!.argsHash });
      await env.deps.idle();
      return call!;
    }

    it('a trusted server taints nothing: its descriptions, results, questions and progress', async () => {
      const env = await toolEngine(h, {
        fixture,
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [
          { blocks: [toolUse('tu_e', 'fx__echo', { message: 'hi' }), toolUse('tu_s', 'fx__slow', { ms: 300 })] },
          { blocks: [toolUse('tu_q', 'fx__ask_input', { question: 'Colour?' })] },
          { blocks: [text('done')] },
        ],
      });
      const { user, conversation, runId } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_input');
      const asked = (await listConversationToolCalls(h.db, conversation.id)).find((c) => c.status === 'awaiting_input')!;
      await answerInput(env.deps, {
        userId: user.id,
        toolCallId: asked.id,
        responses: { answer: { action: 'accept', content: { answer: 'teal' } } },
        round: asked.version,
      });
      await env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(await storedMark(conversation.id)).toBeNull();
      expect(await conversationTaint(h.db, conversation.id)).toBeNull();
      await env.close();
    });

    it("offering an untrusted server's tools taints the conversation before the model reads them, and says so in words", async () => {
      const env = await toolEngine(h, { fixture, trust: 'untrusted', script: [{ blocks: [text('hello')] }] });
      const { conversation } = await start(env);
      expect(env.model.requests[0]!.body.tools!.length).toBeGreaterThan(0);
      expect(await storedMark(conversation.id)).toMatchObject({
        v: 1,
        source: 'tool_description',
        serverId: 'fixture-server',
        serverName: 'Fixture',
        tool: expect.any(String),
      });
      const { reason } = (await conversationTaint(h.db, conversation.id))!;
      const when = /\(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/.source;
      expect(reason).toMatch(
        new RegExp(`^The description of the tool "[a-z_]+" from the untrusted server "Fixture" was offered to the model ${when}\\. `),
      );
      expect(reason.endsWith(TAINT_CONSEQUENCE)).toBe(true);
      await env.close();
    });

    it('a result of an untrusted server taints it (and a stored untrusted result counts even without the mark)', async () => {
      const env = await toolEngine(h, {
        fixture,
        trust: 'untrusted',
        script: [{ blocks: [toolUse('tu_l', 'fx__lying_readonly', { value: 'x' })] }, { blocks: [text('ok')] }],
      });
      const { user, conversation, runId } = await start(env);
      await approveAfterForgetting(env, user, conversation.id);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(await storedMark(conversation.id)).toMatchObject({ source: 'result', serverName: 'Fixture', tool: 'lying_readonly' });
      expect((await conversationTaint(h.db, conversation.id))!.reason).toMatch(
        /^A result of "lying_readonly" from the server "Fixture" \(content not trusted\) entered the conversation/,
      );
      // A conversation from before the mark existed: its untrusted result still counts.
      await forgetMark(conversation.id);
      expect(await getConversationTaint(h.db, conversation.id)).toMatchObject({
        source: 'result',
        serverId: 'fixture-server',
        tool: 'lying_readonly',
      });
      await env.close();
    });

    it("an untrusted server's elicitation message taints it", async () => {
      const env = await toolEngine(h, {
        fixture,
        trust: 'untrusted',
        script: [{ blocks: [toolUse('tu_q', 'fx__ask_input', { question: 'Your password, please?' })] }, { blocks: [text('ok')] }],
      });
      const { user, conversation, runId } = await start(env);
      await approveAfterForgetting(env, user, conversation.id);
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_input');
      expect(await storedMark(conversation.id)).toMatchObject({ source: 'elicitation', serverName: 'Fixture', tool: 'ask_input' });
      expect((await conversationTaint(h.db, conversation.id))!.reason).toMatch(
        /^The server "Fixture" \(content not trusted\) asked a question while running "ask_input"/,
      );
      await env.close();
    });

    it("an untrusted server's progress text taints it (before its result does)", async () => {
      const env = await toolEngine(h, {
        fixture,
        trust: 'untrusted',
        script: [{ blocks: [toolUse('tu_s', 'fx__slow', { ms: 400 })] }, { blocks: [text('ok')] }],
      });
      const { user, conversation, runId } = await start(env);
      await approveAfterForgetting(env, user, conversation.id);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(await storedMark(conversation.id)).toMatchObject({ source: 'progress', serverName: 'Fixture', tool: 'slow' });
      expect((await conversationTaint(h.db, conversation.id))!.reason).toMatch(
        /^The server "Fixture" \(content not trusted\) sent progress messages while running "slow"/,
      );
      await env.close();
    });

    describe('the decision table reads the stored taint at propose time', () => {
      const trusted = () => fixtureConfig(fixture.url, 'trusted');
      let stranger: FixtureServer;
      beforeAll(async () => {
        stranger = await startFixtureServer();
      });
      afterAll(async () => stranger?.close());
      const strangerConfig = (): McpServerConfig => ({
        id: 'stranger-server',
        namespace: 'st',
        displayName: 'Stranger',
        url: stranger.url,
        trust: 'untrusted',
        timeoutMs: 5000,
      });

      async function twoServers(servers: McpServerConfig[], grants: Record<string, Partial<ToolGrant>>, script: ScriptedReply[]) {
        const model = await startScriptedModel(script);
        const tools = {
          gateway: createMcpGateway({ fetch: loopbackFetch }),
          serversFor: async () => servers,
          grants: staticGrants(grants),
        };
        const deps = engineDeps(h, { client: model.client, modelName: 'claude-test', tools });
        return { deps, model, close: () => model.close() };
      }
      const counterGrant = { 'fixture-server/counter': { autoApprove: true }, 'stranger-server/*': {} };

      it('runs an auto-approved write of a trusted server while nothing untrusted entered', async () => {
        const before = fixture.state.counter;
        const env = await twoServers([trusted()], counterGrant, [{ blocks: [toolUse('tu_c', 'fx__counter')] }, { blocks: [text('ok')] }]);
        const { conversation } = await start(env);
        const [call] = await listConversationToolCalls(h.db, conversation.id);
        expect(call).toMatchObject({ status: 'succeeded', verdict: { verdict: 'auto' } });
        expect(fixture.state.counter).toBe(before + 1);
        await env.close();
      });

      it('asks for the same auto-approved write once an untrusted server’s tool was offered in the conversation', async () => {
        const before = fixture.state.counter;
        const env = await twoServers([trusted(), strangerConfig()], counterGrant, [{ blocks: [toolUse('tu_c', 'fx__counter')] }]);
        const { conversation, runId } = await start(env);
        expect(env.model.requests[0]!.body.tools!.map((t) => t.name)).toContain('st__echo');
        expect(await storedMark(conversation.id)).toMatchObject({ source: 'tool_description', serverName: 'Stranger' });
        const [call] = await listConversationToolCalls(h.db, conversation.id);
        expect(call).toMatchObject({ status: 'pending_approval', verdict: { verdict: 'ask' } });
        expect(call!.verdict!.reason).toMatch(
          /^The conversation holds content from "Stranger", which could steer the model; this tool is not marked read-only/,
        );
        expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
        expect(fixture.state.counter).toBe(before);
        // A trusted read-only tool is still automatic: it cannot act on what was read.
        await env.close();
      });

      it('keeps a trusted read-only tool automatic in a tainted conversation', async () => {
        const env = await twoServers([trusted(), strangerConfig()], { 'fixture-server/echo': {}, 'stranger-server/*': {} }, [
          { blocks: [toolUse('tu_e', 'fx__echo', { message: 'hi' })] },
          { blocks: [text('ok')] },
        ]);
        const { conversation } = await start(env);
        expect(await storedMark(conversation.id)).not.toBeNull();
        expect((await listConversationToolCalls(h.db, conversation.id))[0]).toMatchObject({
          status: 'succeeded',
          verdict: { verdict: 'auto' },
        });
        await env.close();
      });
    });
  });
}
