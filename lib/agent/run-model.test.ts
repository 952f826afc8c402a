import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listMessages } from '@/db/queries/messages';
import { getRun } from '@/db/queries/runs';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { decideCall } from './decide';
import type { EngineDeps } from './deps';
import { startRun } from './engine';
import { toMessageParams } from './history';
import { depsForRun, outputRequest } from './run-model';

const ON = { v: 2 as const, enabled: true, budgetTokens: 8000, effort: 'high' as const };
const model = (m: Partial<EngineDeps['model']>) => ({ client: null as never, model: 'claude-opus-4-1', ...m });

describe('max_tokens for a model', () => {
  it('is the configured length, never more than the model accepts', () => {
    // claude-opus-4-1 takes 32,000 (the known table); a listed figure wins.
    expect(outputRequest(model({ maxTokens: 4096 }), null)).toEqual({ max_tokens: 4096 });
    expect(outputRequest(model({ maxTokens: 50_000 }), null)).toEqual({ max_tokens: 32_000 });
    expect(outputRequest(model({ maxTokens: 4096, limits: { maxOutputTokens: 1000 } }), null)).toEqual({ max_tokens: 1000 });
    expect(outputRequest(model({ model: 'claude-3-5-haiku' }), null)).toEqual({ max_tokens: 4096 });
  });

  it('keeps thinking within the limit: the budget on top of the answer, else the limit with half of it to think', () => {
    expect(outputRequest(model({ maxTokens: 4096 }), ON)).toEqual({
      thinking: { type: 'enabled', budget_tokens: 8000 },
      max_tokens: 12_096,
    });
    expect(outputRequest(model({ maxTokens: 4096, limits: { maxOutputTokens: 10_000 } }), ON)).toEqual({
      thinking: { type: 'enabled', budget_tokens: 5000 },
      max_tokens: 10_000,
    });
    expect(outputRequest(model({ maxTokens: 4096, limits: { maxOutputTokens: 20_000 } }), { ...ON, budgetTokens: 32_000 })).toEqual({
      thinking: { type: 'enabled', budget_tokens: 10_000 },
      max_tokens: 20_000,
    });
  });

  it("gives a run's deps its own model and that model's listed limits", () => {
    const listed = { 'claude-big': { contextWindow: 1_000_000, maxOutputTokens: 128_000 } } as Record<
      string,
      { contextWindow: number; maxOutputTokens: number }
    >;
    const deps = { model: model({ model: 'claude-default', listedLimits: (m: string) => listed[m] ?? null }) } as EngineDeps;
    expect(depsForRun(deps, { model: 'claude-big' }).model).toMatchObject({ model: 'claude-big', limits: listed['claude-big'] });
    expect(depsForRun(deps, { model: 'claude-unlisted' }).model).toMatchObject({ model: 'claude-unlisted', limits: null });
  });
});

describe('a final assistant message in the history (a prefill)', () => {
  it('ends without trailing whitespace; earlier messages and other endings are left alone', () => {
    const stored = [
      { role: 'user' as const, content: [text('hi  ')] },
      { role: 'assistant' as const, content: [text('One, '), text('two, \n ')] },
    ];
    expect(toMessageParams(stored)).toEqual([
      { role: 'user', content: [text('hi  ')] },
      { role: 'assistant', content: [text('One, '), text('two,')] },
    ]);
    expect(toMessageParams([...stored, { role: 'user', content: [text('go on ')] }]).at(-2)).toEqual({
      role: 'assistant',
      content: [text('One, '), text('two, \n ')],
    });
    // A last block of whitespace only goes, and so does a message left empty.
    expect(toMessageParams([stored[0]!, { role: 'assistant', content: [text('   ')] }])).toEqual([
      { role: 'user', content: [text('hi  ')] },
    ]);
  });
});

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`a run's model, through the engine on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('asks the model the run started with at every step, also when another engine (configured otherwise) resumes it', async () => {
      const env = await toolEngine(h, { script: [{ blocks: [toolUse('tu_c', 'fx__counter')] }, { blocks: [text('Counted.')] }] });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'count',
        model: 'claude-chosen',
      });
      await env.deps.idle();
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'awaiting_approval', model: 'claude-chosen' });
      // Another instance, configured with another model, takes the decision and resumes the run.
      const elsewhere = engineDeps(h, {
        client: env.model.client,
        modelName: 'claude-elsewhere',
        tools: env.deps.tools,
        instanceId: 'other-instance',
      });
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      await decideCall(elsewhere, { userId: user.id, toolCallId: call!.id, decision: 'allow_once', argsHash: call!.argsHash });
      await elsewhere.idle();
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      expect(env.model.requests.map((r) => r.body.model)).toEqual(['claude-chosen', 'claude-chosen']);
      await env.close();
    });

    it('continues a cut answer with no new message: the model sees the cut answer last, trimmed, and goes on', async () => {
      const scripted = await startScriptedModel([
        { blocks: [text('Once upon a time ')], stopReason: 'max_tokens' },
        { blocks: [text(' there was a switchboard.')] },
      ]);
      const deps = engineDeps(h, { client: scripted.client, modelName: 'claude-test' });
      const { user, conversation } = await userAndConversation(h);
      const base = { conversationId: conversation.id, userId: user.id, sessionId: null };
      await startRun(deps, { ...base, text: 'tell a story' });
      await deps.idle();
      const { run, messages } = await startRun(deps, { ...base, text: 'continue', messages: [] });
      await deps.idle();
      expect(messages).toEqual([]);
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
      const sent = scripted.requests[1]!.body.messages;
      expect(sent.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect((sent[1]!.content as { text: string }[]).map((b) => b.text)).toEqual(['Once upon a time']);
      const stored = await listMessages(h.db, conversation.id);
      expect(stored.map((m) => [m.role, m.stopReason, m.runId === run.id])).toEqual([
        ['user', null, false],
        ['assistant', 'max_tokens', false],
        ['assistant', 'end_turn', true],
      ]);
      await scripted.close();
    });
  });
}
