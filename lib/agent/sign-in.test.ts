import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter as listEvents } from '@/db/queries/events';
import { listMessages } from '@/db/queries/messages';
import { getRun } from '@/db/queries/runs';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { staticGrants, type ToolGrant } from '@/lib/consent/grant-source';
import type { FetchLike } from '@/lib/mcp/connection';
import { SignInRequired } from '@/lib/mcp/failures';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { startScriptedModel, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { loopbackFetch } from '@/test/loopback-fetch';
import { text, toolUse } from '@/test/tool-harness';

import { answerInput } from './answer-input';
import { activeRunOf, cancelRun, resumeLapsedRuns, RunConflict, startRun } from './engine';
import type { EventSink } from './events';
import { toMessageParams } from './history';
import { resumeAfterSignIn } from './sign-in';
import { toToolCallView } from './tool-call-view';

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

/**
 * Servers behind a sign-in: until the person has "signed in" to one, its `tools/call` requests are
 * refused the way the OAuth provider refuses them — `SignInRequired` thrown from the fetch the SDK
 * uses — while listing works (a step-up, or a credential that expired between listing and calling).
 */
function signInGate(servers: McpServerConfig[]) {
  const signedIn = new Set<string>();
  const fetch: FetchLike = async (url, init) => {
    const server = servers.find((s) => url.toString().startsWith(s.url));
    const body = typeof init?.body === 'string' ? init.body : '';
    if (server && !signedIn.has(server.id) && body.includes('"tools/call"')) {
      throw new SignInRequired({
        serverId: server.id,
        serverName: server.displayName,
        reason: 'insufficient_scope',
        scopes: ['notes:write'],
      });
    }
    return loopbackFetch(url, init);
  };
  return { fetch, signIn: (serverId: string) => signedIn.add(serverId) };
}

function expectValidHistory(history: Anthropic.MessageParam[]) {
  history.forEach((m, i) => {
    const uses = (m.content as Block[]).filter((b) => b.type === 'tool_use').map((b) => b.id);
    if (uses.length) {
      const results = (history[i + 1]!.content as Block[]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
      expect(results).toEqual(uses);
    }
  });
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`a call that needs sign-in, on ${kind}`, () => {
    let h: DbHandle;
    let fa: FixtureServer;
    let fb: FixtureServer;
    let servers: McpServerConfig[];
    beforeAll(async () => {
      h = await openTestDb(kind);
      [fa, fb] = await Promise.all([startFixtureServer(), startFixtureServer()]);
      servers = [
        { id: 'srv-a', namespace: 'fa', displayName: 'Alpha', url: fa.url, trust: 'trusted', timeoutMs: 5000 },
        { id: 'srv-b', namespace: 'fb', displayName: 'Beta', url: fb.url, trust: 'trusted', timeoutMs: 5000 },
      ];
    });
    afterAll(async () => {
      await Promise.all([fa?.close(), fb?.close()]);
      await h?.close();
    });

    /** One "instance": its own model script, lease owner and tool host over the same database and gate. */
    async function instance(
      gate: ReturnType<typeof signInGate>,
      script: ScriptedReply[],
      opts: { instanceId?: string; grants?: Record<string, Partial<ToolGrant>> } = {},
    ) {
      const model = await startScriptedModel(script);
      const grants = opts.grants ?? { 'srv-a/*': { autoApprove: true }, 'srv-b/*': { autoApprove: true } };
      const deps = engineDeps(h, {
        client: model.client,
        modelName: 'claude-test',
        instanceId: opts.instanceId ?? 'test-instance',
        tools: { gateway: createMcpGateway({ fetch: gate.fetch }), serversFor: async () => servers, grants: staticGrants(grants) },
      });
      return { deps, model };
    }

    it('pauses durably, refuses a new message, and completes after the sign-in', async () => {
      const gate = signInGate(servers);
      const { deps, model } = await instance(gate, [
        { blocks: [text('Saving.'), toolUse('tu_1', 'fa__echo', { message: 'one' })] },
        { blocks: [text('Saved.')] },
      ]);
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await deps.idle();

      const paused = (await getRun(h.db, run.id))!;
      expect(paused).toMatchObject({ status: 'awaiting_sign_in', leaseOwner: null });
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      expect(call).toMatchObject({ status: 'awaiting_sign_in', endedAt: null });
      expect(call!.signIn).toMatchObject({ serverId: 'srv-a', serverName: 'Alpha', reason: 'insufficient_scope', scopes: ['notes:write'] });
      const types = (await listEvents(h.db, conversation.id, 0)).map((e) => e.type);
      expect(types).toContain('tool_call.sign_in_requested');
      expect(types.at(-1)).toBe('run.awaiting_sign_in');
      const pause = (await listEvents(h.db, conversation.id, 0)).at(-1)!;
      expect(pause.data).toMatchObject({ toolCallIds: [call!.id], servers: [{ serverId: 'srv-a', serverName: 'Alpha' }] });
      expect(fa.calls.filter((c) => c.arguments.message === 'one')).toHaveLength(0);

      // Active: a new message gets 409; nobody takes it over (no lease to lapse), not even the sweep.
      await expect(startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'again' })).rejects.toThrow(
        RunConflict,
      );
      expect(await resumeLapsedRuns(deps)).toBe(0);
      expect((await activeRunOf(deps, conversation.id))!.status).toBe('awaiting_sign_in');

      // Another user's sign-in, or another server's, resumes nothing.
      expect(await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-b' })).toEqual({ toolCallIds: [], resumedRunIds: [] });

      gate.signIn('srv-a');
      const out = await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' });
      expect(out).toEqual({ toolCallIds: [call!.id], resumedRunIds: [run.id] });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      const done = (await listConversationToolCalls(h.db, conversation.id))[0]!;
      expect(done.status).toBe('succeeded');
      expect(toToolCallView(done)).toMatchObject({ signIn: null, waitedFor: 'sign_in' }); // the turn's timeline says what it waited for
      const result = (model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'tu_1' });
      expect(result.is_error ?? false).toBe(false);
      expectValidHistory(toMessageParams(await listMessages(h.db, conversation.id)));
      // Twice is harmless: nothing waits any more.
      expect(await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' })).toEqual({ toolCallIds: [], resumedRunIds: [] });
      await model.close();
    });

    it('completes on a new instance after a restart (new engine deps, same database)', async () => {
      const gate = signInGate(servers);
      const first = await instance(gate, [{ blocks: [toolUse('tu_r', 'fa__echo', { message: 'restart' })] }], { instanceId: 'before' });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(first.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await first.deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('awaiting_sign_in');
      await first.model.close(); // the old process is gone

      const after = await instance(gate, [{ blocks: [text('Done after restart.')] }], { instanceId: 'after' });
      gate.signIn('srv-a');
      expect((await resumeAfterSignIn(after.deps, { userId: user.id, serverId: 'srv-a' })).resumedRunIds).toEqual([run.id]);
      await after.deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      expect(after.model.requests).toHaveLength(1);
      expect(fa.calls.filter((c) => c.arguments.message === 'restart')).toHaveLength(1);
      await after.model.close();
    });

    it('waits for both servers when a step needs sign-in to two', async () => {
      const gate = signInGate(servers);
      const { deps, model } = await instance(gate, [
        { blocks: [toolUse('tu_a', 'fa__echo', { message: 'to alpha' }), toolUse('tu_b', 'fb__echo', { message: 'to beta' })] },
        { blocks: [text('Both done.')] },
      ]);
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('awaiting_sign_in');
      const pause = (await listEvents(h.db, conversation.id, 0)).at(-1)!;
      expect(pause.type).toBe('run.awaiting_sign_in');
      expect((pause.data as { servers: { serverId: string }[] }).servers.map((s) => s.serverId).sort()).toEqual(['srv-a', 'srv-b']);

      gate.signIn('srv-a');
      const one = await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' });
      expect(one.toolCallIds).toHaveLength(1);
      expect(one.resumedRunIds).toEqual([]);
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('awaiting_sign_in');
      expect(fa.calls.filter((c) => c.arguments.message === 'to alpha')).toHaveLength(0); // decide all, then execute

      gate.signIn('srv-b');
      expect((await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-b' })).resumedRunIds).toEqual([run.id]);
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      const results = model.requests[1]!.body.messages.at(-1)!.content as Block[];
      expect(results.map((b) => [b.tool_use_id, b.is_error ?? false])).toEqual([
        ['tu_a', false],
        ['tu_b', false],
      ]);
      await model.close();
    });

    it("waits for a sign-in and a server's question in the same step, in either order", async () => {
      for (const order of ['sign-in first', 'answer first'] as const) {
        const gate = signInGate(servers);
        gate.signIn('srv-b'); // Beta asks a question; Alpha needs the sign-in
        const { deps, model } = await instance(gate, [
          {
            blocks: [toolUse('tu_s', 'fa__echo', { message: `mixed ${order}` }), toolUse('tu_q', 'fb__ask_input', { question: 'Colour?' })],
          },
          { blocks: [text('Both answered.')] },
        ]);
        const { user, conversation } = await userAndConversation(h);
        const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
        await deps.idle();
        expect((await getRun(h.db, run.id))!.status).toBe('awaiting_sign_in');
        const calls = await listConversationToolCalls(h.db, conversation.id);
        expect(calls.map((c) => c.status)).toEqual(['awaiting_sign_in', 'awaiting_input']);
        const answer = () =>
          answerInput(deps, {
            userId: user.id,
            toolCallId: calls[1]!.id,
            responses: { answer: { action: 'accept', content: { answer: 'teal' } } },
            round: calls[1]!.version,
          });
        gate.signIn('srv-a');
        if (order === 'sign-in first') {
          expect((await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' })).resumedRunIds).toEqual([]);
          expect((await answer()).resumed).toBe(true);
        } else {
          expect((await answer()).resumed).toBe(false);
          expect((await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' })).resumedRunIds).toEqual([run.id]);
        }
        await deps.idle();
        expect((await getRun(h.db, run.id))!.status).toBe('completed');
        const results = model.requests[1]!.body.messages.at(-1)!.content as Block[];
        expect(results.map((b) => b.tool_use_id)).toEqual(['tu_s', 'tu_q']);
        expect(JSON.stringify(results[1]!.content)).toContain('You answered: teal');
        await model.close();
      }
    });

    it('does not pause for a sign-in that landed while the driver was about to pause', async () => {
      const gate = signInGate(servers);
      const base = await instance(gate, [{ blocks: [toolUse('tu_w', 'fa__echo', { message: 'window' })] }, { blocks: [text('Ran.')] }]);
      const { user, conversation } = await userAndConversation(h);
      let landed: Awaited<ReturnType<typeof resumeAfterSignIn>> | undefined;
      // The callback lands between the call being marked awaiting_sign_in (committed) and the run pausing.
      let due = false;
      const land = async () => {
        if (!due || landed) return;
        due = false;
        gate.signIn('srv-a');
        landed = await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' });
      };
      const events: EventSink = {
        ...base.deps.events,
        storeWith: async (...args) => {
          if (args[3].some((e) => e.type === 'tool_call.sign_in_requested')) due = true;
          return base.deps.events.storeWith(...args);
        },
      };
      // The mark is stored inside its transaction: the callback lands once that has committed.
      const db = Object.create(base.deps.db, {
        transaction: {
          value: async (...args: Parameters<typeof base.deps.db.transaction>) => {
            const result = await base.deps.db.transaction(...args);
            await land();
            return result;
          },
        },
      }) as typeof base.deps.db;
      const deps = { ...base.deps, db, events };
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await deps.idle();
      expect(landed).toMatchObject({ resumedRunIds: [] }); // the run was still running: the driver carries on itself
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      expect((await listEvents(h.db, conversation.id, 0)).map((e) => e.type)).not.toContain('run.awaiting_sign_in');
      expect(fa.calls.filter((c) => c.arguments.message === 'window')).toHaveLength(1);
      await base.model.close();
    });

    it('Stop ends a run that waits for sign-in, with a valid history', async () => {
      const gate = signInGate(servers);
      const { deps, model } = await instance(gate, [{ blocks: [text('Trying.'), toolUse('tu_c', 'fa__echo', { message: 'stop me' })] }]);
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('awaiting_sign_in');
      await cancelRun(deps, conversation.id);
      expect((await getRun(h.db, run.id))!.status).toBe('cancelled');
      expect((await listConversationToolCalls(h.db, conversation.id))[0]!.status).toBe('cancelled');
      const history = toMessageParams(await listMessages(h.db, conversation.id));
      expectValidHistory(history);
      expect(history.at(-1)!.role).toBe('user');
      // A sign-in after the Stop runs nothing.
      gate.signIn('srv-a');
      expect(await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' })).toEqual({ toolCallIds: [], resumedRunIds: [] });
      expect(fa.calls.filter((c) => c.arguments.message === 'stop me')).toHaveLength(0);
      await model.close();
    });

    it('checks consent again: a sign-in never widens what was granted', async () => {
      const gate = signInGate(servers);
      const grants: Record<string, Partial<ToolGrant>> = { 'srv-a/*': { autoApprove: true } };
      const { deps, model } = await instance(gate, [{ blocks: [toolUse('tu_g', 'fa__counter')] }, { blocks: [text('Noted.')] }], {
        grants,
      });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('awaiting_sign_in');
      // The person switched the tool off while the call waited.
      grants['srv-a/*'] = { state: 'missing' };
      gate.signIn('srv-a');
      await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      expect(call!.status).toBe('rejected');
      expect(fa.state.counter).toBe(0);
      const result = (model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result.is_error).toBe(true);
      expect(JSON.stringify(result.content)).toContain('not switched on');
      await model.close();
    });

    it('sends a call whose grant now asks to the person instead of running it', async () => {
      const gate = signInGate(servers);
      const grants: Record<string, Partial<ToolGrant>> = { 'srv-a/*': { autoApprove: true } };
      const { deps, model } = await instance(gate, [{ blocks: [toolUse('tu_p', 'fa__counter')] }], { grants });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      await deps.idle();
      grants['srv-a/*'] = { autoApprove: false };
      gate.signIn('srv-a');
      await resumeAfterSignIn(deps, { userId: user.id, serverId: 'srv-a' });
      await deps.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('awaiting_approval');
      expect((await listConversationToolCalls(h.db, conversation.id))[0]!.status).toBe('pending_approval');
      expect((await listEvents(h.db, conversation.id, 0)).at(-1)!.type).toBe('run.awaiting_approval');
      expect(fa.state.counter).toBe(0);
      await cancelRun(deps, conversation.id);
      await model.close();
    });
  });
}
