import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listMessages } from '@/db/queries/messages';
import { getRun, requestRunCancel, updateRunIfVersion } from '@/db/queries/runs';
import { getStoredResult, listConversationToolCalls, updateToolCallIfVersion } from '@/db/queries/tool-calls';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { answerInput } from './answer-input';
import { decideCall, DecisionError } from './decide';
import { cancelRun, startRun } from './engine';
import { toMessageParams } from './history';
import { runToolPhase } from './tool-phase';

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

/** Every tool_use is answered by a tool_result in the next user message, in order. */
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

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`run engine with tools on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function start(env: Awaited<ReturnType<typeof toolEngine>>, prompt = 'go') {
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: prompt });
      await env.deps.idle();
      return { user, conversation, runId: run.id };
    }

    it('runs three parallel calls and sends exactly one user message with three results in order', async () => {
      const env = await toolEngine(h, {
        script: [
          {
            blocks: [
              text('Three at once.'),
              toolUse('tu_1', 'fx__echo', { message: 'one' }),
              toolUse('tu_2', 'fx__echo', { message: 'two' }),
              toolUse('tu_3', 'fx__echo', { message: 'three' }),
            ],
          },
          { blocks: [text('All done.')] },
        ],
      });
      const { conversation, runId } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(env.model.requests).toHaveLength(2);
      const second = env.model.requests[1]!.body;
      const last = second.messages.at(-1)!;
      expect(last.role).toBe('user');
      const results = last.content as Block[];
      expect(results.map((b) => [b.type, b.tool_use_id, b.is_error ?? false])).toEqual([
        ['tool_result', 'tu_1', false],
        ['tool_result', 'tu_2', false],
        ['tool_result', 'tu_3', false],
      ]);
      expect(JSON.stringify(results[1]!.content)).toContain('two');
      // The result is wrapped so the model can tell tool output from instructions, server named.
      expect(JSON.stringify(results[0]!.content)).toContain('<tool_output');
      // Same tools, same order, on every turn; a cache breakpoint on the last one.
      expect(second.tools).toEqual(env.model.requests[0]!.body.tools);
      expect(second.tools!.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
      expect(second.tools!.map((t) => t.name)).toContain('fx__echo');
      expect(env.fixture.calls.filter((c) => c.name === 'echo')).toHaveLength(3);
      expectValidHistory(toMessageParams(await listMessages(h.db, conversation.id)));
      await env.close();
    });

    it('pauses for approval, and a denial reaches the model as an error with the reason; the tool never runs', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_c', 'fx__counter')] }, { blocks: [text('Understood.')] }] });
      const { conversation, runId, user } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      expect(call).toMatchObject({ status: 'pending_approval', tool: 'counter' });
      const { resumed } = await decideCall(env.deps, {
        userId: user.id,
        toolCallId: call!.id,
        decision: 'deny',
        argsHash: call!.argsHash,
        reason: 'not today',
      });
      expect(resumed).toBe(true);
      await env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'tu_c', is_error: true });
      expect(JSON.stringify(result.content)).toContain('not today');
      expect(env.fixture.state.counter).toBe(0);
      await env.close();
    });

    it('answers invalid input with an error naming the field, without asking or calling', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_s', 'fx__slow', { ms: 'soon' })] }, { blocks: [text('ok')] }] });
      const { runId } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result.is_error).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/ms/);
      expect(JSON.stringify(result.content)).toMatch(/soon/);
      expect(env.fixture.calls).toHaveLength(0);
      await env.close();
    });

    it('turns a timeout into an error result and keeps going', async () => {
      const env = await toolEngine(h, {
        timeoutMs: 300,
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [{ blocks: [toolUse('tu_t', 'fx__slow', { ms: 3000, progress: false })] }, { blocks: [text('timed out')] }],
      });
      const { runId, conversation } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      expect(call!.status).toBe('timed_out');
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result.is_error).toBe(true);
      await env.close();
    });

    it('asks for a tool an untrusted server claims is read-only', async () => {
      const env = await toolEngine(h, {
        trust: 'untrusted',
        script: [{ blocks: [toolUse('tu_l', 'fx__lying_readonly', { value: 'x' })] }],
      });
      const { runId, conversation } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
      expect((await listConversationToolCalls(h.db, conversation.id))[0]!.status).toBe('pending_approval');
      expect(env.fixture.state.writes).toHaveLength(0);
      await env.close();
    });

    it('runs a non-idempotent tool exactly once when approved twice, and refuses a conflicting decision', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_k', 'fx__counter')] }, { blocks: [text('counted')] }] });
      const { conversation, user, runId } = await start(env);
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      const d = { userId: user.id, toolCallId: call!.id, argsHash: call!.argsHash };
      const outcomes = await Promise.allSettled([
        decideCall(env.deps, { ...d, decision: 'allow_once' }),
        decideCall(env.deps, { ...d, decision: 'allow_once' }),
        decideCall(env.deps, { ...d, decision: 'deny' }),
      ]);
      await env.deps.idle();
      const rejected = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
      // Whichever side won, the other side is a conflict and the same side is harmless.
      expect(rejected.every((r) => r.reason instanceof DecisionError && r.reason.kind === 'conflict')).toBe(true);
      const final = (await listConversationToolCalls(h.db, conversation.id))[0]!;
      expect(env.fixture.state.counter).toBe(final.status === 'succeeded' ? 1 : 0);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      await expect(
        decideCall(env.deps, { ...d, userId: '00000000-0000-0000-0000-000000000000', decision: 'allow_once' }),
      ).rejects.toMatchObject({ kind: 'not_found' });
      await env.close();
    });

    it('keeps a valid history when Stop lands while a call waits for approval', async () => {
      const env = await toolEngine(h, {
        script: [{ blocks: [text('May I?'), toolUse('tu_x', 'fx__counter'), toolUse('tu_y', 'fx__echo', { message: 'hi' })] }],
      });
      const { conversation, runId } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');
      await cancelRun(env.deps, conversation.id);
      expect((await getRun(h.db, runId))!.status).toBe('cancelled');
      const history = toMessageParams(await listMessages(h.db, conversation.id));
      expectValidHistory(history);
      expect(history.at(-1)!.role).toBe('user');
      expect(env.fixture.state.counter).toBe(0);
      await env.close();
    });

    it("pauses for a server's elicitation and resumes the call with the answer and the exact state", async () => {
      const env = await toolEngine(h, {
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [{ blocks: [toolUse('tu_q', 'fx__ask_input', { question: 'Favourite colour?' })] }, { blocks: [text('Thanks.')] }],
      });
      const { conversation, runId, user } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('awaiting_input');
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      expect(call!.status).toBe('awaiting_input');
      expect(JSON.stringify(call!.inputRequests)).toContain('Favourite colour?');
      await expect(
        answerInput(env.deps, { userId: user.id, toolCallId: call!.id, responses: { nope: { action: 'accept' } }, round: call!.version }),
      ).rejects.toMatchObject({ kind: 'invalid' });
      const { resumed } = await answerInput(env.deps, {
        userId: user.id,
        toolCallId: call!.id,
        responses: { answer: { action: 'accept', content: { answer: 'teal' } } },
        round: call!.version,
      });
      expect(resumed).toBe(true);
      await env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(JSON.stringify(result.content)).toContain('You answered: teal');
      expectValidHistory(toMessageParams(await listMessages(h.db, conversation.id)));
      await env.close();
    });

    it('cuts a huge result, stores it whole, and lets the model page through it in the same conversation only', async () => {
      let callId = '';
      const env = await toolEngine(h, {
        grants: { 'fixture-server/*': { autoApprove: true } },
        script: [
          { blocks: [toolUse('tu_h', 'fx__huge', { chars: 100_000 })] },
          (req) => {
            const marker = JSON.stringify(req.body.messages.at(-1)!.content);
            callId = /\\"callId\\":\\"([0-9a-f-]{36})\\"/.exec(marker)?.[1] ?? 'missing';
            return { blocks: [toolUse('tu_r', 'switchboard__read_result', { callId, offset: 32_000 })] };
          },
          { blocks: [text('Read it.')] },
        ],
      });
      const { runId, conversation } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      const first = JSON.stringify(env.model.requests[1]!.body.messages.at(-1)!.content);
      expect(first).toContain('result truncated');
      expect(first.length).toBeLessThan(40_000);
      expect(env.model.requests[1]!.body.tools!.at(-1)!.name).toBe('switchboard__read_result');
      const page = (env.model.requests[2]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(page.is_error ?? false).toBe(false);
      expect(JSON.stringify(page.content)).toContain('<tool_output');
      const calls = await listConversationToolCalls(h.db, conversation.id);
      const stored = await getStoredResult(h.db, conversation.id, calls.find((c) => c.toolUseId === 'tu_h')!.id);
      expect(stored!.fullText.length).toBeGreaterThanOrEqual(100_000);
      expect(calls.find((c) => c.toolUseId === 'tu_r')!.status).toBe('succeeded');

      // Another conversation cannot read it by id.
      const other = await toolEngine(h, {
        script: [{ blocks: [toolUse('tu_o', 'switchboard__read_result', { callId, offset: 0 })] }, { blocks: [text('no')] }],
      });
      await start(other);
      expect(other.model.requests[0]!.body.tools!.map((t) => t.name)).not.toContain('switchboard__read_result');
      const refused = (other.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(refused.is_error).toBe(true);
      await other.close();
      await env.close();
    });

    it('runs an edited approval with the edited input, revalidated, and tells the model which input ran', async () => {
      const env = await toolEngine(h, {
        trust: 'untrusted',
        script: [{ blocks: [toolUse('tu_e', 'fx__lying_readonly', { value: 'asked' })] }, { blocks: [text('ok')] }],
      });
      const { conversation, user, runId } = await start(env);
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      const d = { userId: user.id, toolCallId: call!.id, argsHash: call!.argsHash, decision: 'allow_once' as const };
      await expect(decideCall(env.deps, { ...d, input: { value: 42 } })).rejects.toMatchObject({ kind: 'invalid', field: 'input' });
      await expect(decideCall(env.deps, { ...d, decision: 'deny', input: { value: 'x' } })).rejects.toMatchObject({ kind: 'invalid' });
      const { toolCall } = await decideCall(env.deps, { ...d, input: { value: 'edited' } });
      expect(toolCall.decision).toMatchObject({ kind: 'allow_once', editedFrom: call!.argsHash });
      // A repeat of the same edited approval, bound to the original hash, is harmless.
      await expect(decideCall(env.deps, { ...d, input: { value: 'edited' } })).resolves.toBeTruthy();
      await env.deps.idle();
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(env.fixture.state.writes).toEqual(['edited']);
      const result = JSON.stringify(env.model.requests[1]!.body.messages.at(-1)!.content);
      expect(result).toContain('edited the arguments');
      expect(result).toContain('\\"value\\":\\"edited\\"');
      await env.close();
    });

    it('never runs an approval that arrives after Stop was requested', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_s1', 'fx__counter')] }, { blocks: [text('should not happen')] }] });
      const { conversation, user, runId } = await start(env);
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      // Stop recorded, but (as in the moment before its request finishes) the run is still paused.
      await requestRunCancel(h.db, runId);
      const { resumed } = await decideCall(env.deps, {
        userId: user.id,
        toolCallId: call!.id,
        decision: 'allow_once',
        argsHash: call!.argsHash,
      });
      await env.deps.idle();
      expect(resumed).toBe(false);
      expect((await getRun(h.db, runId))!.status).toBe('cancelled');
      expect(env.fixture.state.counter).toBe(0);
      expect(env.model.requests).toHaveLength(1);
      expectValidHistory(toMessageParams(await listMessages(h.db, conversation.id)));
      await env.close();
    });

    it('does not pause for a decision that landed while the driver was about to pause', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_w', 'fx__counter')] }, { blocks: [text('counted')] }] });
      const { conversation, runId } = await start(env);
      const paused = (await getRun(h.db, runId))!;
      const [stale] = await listConversationToolCalls(h.db, conversation.id);
      // Rewind to the window: the driver holds the run and still sees the call as pending...
      const running = (await updateRunIfVersion(h.db, runId, paused.version, {
        status: 'running',
        leaseOwner: env.deps.instanceId,
        leaseExpiresAt: new Date(Date.now() + 60_000),
      }))!;
      // ...while the decision commits.
      await updateToolCallIfVersion(h.db, stale!.id, stale!.version, {
        status: 'approved',
        decision: { v: 1, kind: 'allow_once', by: 'test', at: new Date().toISOString() },
      });
      const next = await runToolPhase(env.deps, env.deps.tools!, running, [stale!], new AbortController().signal);
      expect(next).not.toBeNull();
      expect((await getRun(h.db, runId))!.status).toBe('running');
      await env.close();
    });

    it('holds an edited input to the grant constraint, and rejects an original input outside it without asking', async () => {
      const constraint = { type: 'object', properties: { value: { enum: ['asked', 'fine'] } } };
      const env = await toolEngine(h, {
        trust: 'untrusted',
        grants: { 'fixture-server/lying_readonly': { constraint } },
        script: [
          {
            blocks: [
              toolUse('tu_c1', 'fx__lying_readonly', { value: 'asked' }),
              toolUse('tu_c2', 'fx__lying_readonly', { value: 'outside' }),
            ],
          },
          { blocks: [text('ok')] },
        ],
      });
      const { conversation, user } = await start(env);
      const calls = await listConversationToolCalls(h.db, conversation.id);
      expect(calls.map((c) => c.status)).toEqual(['pending_approval', 'rejected']);
      const d = { userId: user.id, toolCallId: calls[0]!.id, argsHash: calls[0]!.argsHash, decision: 'allow_once' as const };
      await expect(decideCall(env.deps, { ...d, input: { value: 'sneaky' } })).rejects.toMatchObject({ kind: 'invalid', field: 'input' });
      await decideCall(env.deps, { ...d, input: { value: 'fine' } });
      await env.deps.idle();
      expect(env.fixture.state.writes).toEqual(['fine']);
      await env.close();
    });

    it('does not offer a tool without a grant, and rejects it if the model names it anyway', async () => {
      const env = await toolEngine(h, {
        grants: { 'fixture-server/echo': {} },
        script: [{ blocks: [toolUse('tu_n', 'fx__counter')] }, { blocks: [text('fine')] }],
      });
      const { runId } = await start(env);
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(env.model.requests[0]!.body.tools!.map((t) => t.name)).toEqual(['fx__echo']);
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result.is_error).toBe(true);
      expect(env.fixture.state.counter).toBe(0);
      await env.close();
    });
  });
}
