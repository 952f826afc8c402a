import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { listMessages } from '@/db/queries/messages';
import { getRun } from '@/db/queries/runs';
import type { StoredThinking } from '@/db/stored-json';
import { createModelClient } from '@/lib/model/client';
import { createModelCatalog } from '@/lib/model/models';
import { KNOWN_ADAPTIVE_ONLY, listedThinkingKind, thinkingKind } from '@/lib/model/thinking-kind';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startScriptedModel, type ScriptedModelInfo } from '@/test/fixtures/scripted-model';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { startRun } from './engine';
import { THINKING_BUDGET, thinkingBudgetProblem, thinkingRequest } from './thinking';

const ON: StoredThinking = { v: 2, enabled: true, budgetTokens: 2000, effort: 'medium' };

describe('extended thinking in a model request', () => {
  it('asks for thinking with room for the answer on top of its budget; off asks for nothing', () => {
    expect(thinkingRequest(ON, 4096)).toEqual({ thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 6096 });
    expect(thinkingRequest({ ...ON, enabled: false }, 4096)).toEqual({ max_tokens: 4096 });
    expect(thinkingRequest(null, 4096)).toEqual({ max_tokens: 4096 });
  });

  it('asks a model that only thinks adaptively for adaptive thinking with the effort, never a budget', () => {
    expect(thinkingRequest(ON, 4096, 'adaptive')).toEqual({
      thinking: { type: 'adaptive' },
      output_config: { effort: 'medium' },
      max_tokens: 6096,
    });
    expect(thinkingRequest({ ...ON, enabled: false }, 4096, 'adaptive')).toEqual({ max_tokens: 4096 });
    expect(thinkingRequest(ON, 4096, 'budget')).toEqual(thinkingRequest(ON, 4096));
  });

  it("decides a model's kind from the listing's capabilities, else the known ids, else a budget", () => {
    expect(listedThinkingKind(capabilities({ enabled: false, adaptive: true }))).toBe('adaptive');
    // Both accepted: the budget the person set is kept.
    expect(listedThinkingKind(capabilities({ enabled: true, adaptive: true }))).toBe('budget');
    expect(listedThinkingKind(capabilities({ enabled: true, adaptive: false }))).toBe('budget');
    expect(listedThinkingKind(null)).toBeNull();
    expect(listedThinkingKind(undefined)).toBeNull();
    // The listing wins over the table; without it, a known id or a dated one of it.
    expect(thinkingKind(KNOWN_ADAPTIVE_ONLY[0]!, 'budget')).toBe('budget');
    expect(thinkingKind(`${KNOWN_ADAPTIVE_ONLY[0]!}-20260101`, null)).toBe('adaptive');
    expect(thinkingKind('claude-sonnet-4-5', null)).toBe('budget');
    expect(thinkingKind('claude-sonnet-4-5', 'adaptive')).toBe('adaptive');
  });

  it('takes a budget the API accepts, and says what is allowed otherwise', () => {
    expect(thinkingBudgetProblem(THINKING_BUDGET.default)).toBeNull();
    expect(thinkingBudgetProblem(1000)).toBe('must be a whole number of tokens from 1024 to 32000 (got 1000)');
    expect(thinkingBudgetProblem(1500.5)).not.toBeNull();
  });
});

/** A listing's `capabilities` with the thinking types given (the rest as a current model has them). */
function capabilities(types: { enabled: boolean; adaptive: boolean }): Anthropic.ModelCapabilities {
  const yes = { supported: true };
  return {
    batch: yes,
    citations: yes,
    code_execution: yes,
    context_management: { supported: true, clear_thinking_20251015: yes, clear_tool_uses_20250919: yes, compact_20260112: null },
    effort: { supported: true, low: yes, medium: yes, high: yes, max: yes, xhigh: null },
    image_input: yes,
    pdf_input: yes,
    server_tools: { supported: true, code_execution: yes, web_search: yes },
    structured_outputs: yes,
    thinking: {
      supported: true,
      types: {
        adaptive: { supported: types.adaptive },
        enabled: { supported: types.enabled },
        between_tools: { supported: false },
        disabled: { supported: true },
      },
    },
  };
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`extended thinking through the engine on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    it('keeps thinking blocks and their signatures byte for byte across a tool round trip, and streams them marked', async () => {
      const thought = {
        type: 'thinking' as const,
        thinking: 'The person wants an echo. I will call fx__echo with “hi”.',
        signature: 'c2lnLTE=.Ab+/9',
      };
      const redacted = { type: 'redacted_thinking' as const, data: 'EncryptedOpaque==' };
      const env = await toolEngine(h, {
        script: [
          { blocks: [thought, redacted, text('Echoing.'), toolUse('tu_t', 'fx__echo', { message: 'hi' })] },
          { blocks: [{ type: 'thinking', thinking: 'It came back.', signature: 'c2lnLTI=' }, text('It said hi.')] },
        ],
      });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, {
        conversationId: conversation.id,
        userId: user.id,
        sessionId: null,
        text: 'echo hi',
        thinking: ON,
      });
      await env.deps.idle();
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', thinking: ON });

      const [first, second] = env.model.requests;
      expect(first!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 2000 + 4096 });
      expect(second!.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2000 } });
      // The assistant turn goes back exactly as the model gave it, thinking and signature included.
      const sentBack = second!.body.messages[1]!;
      expect(sentBack.role).toBe('assistant');
      // (Key order is the database's: jsonb keeps values, not the order of keys, and the API reads values.)
      const [sentThought, sentRedacted] = sentBack.content as (typeof thought | typeof redacted)[];
      expect(sentThought).toEqual(thought);
      expect(sentRedacted).toEqual(redacted);
      expect((sentThought as typeof thought).signature).toBe(thought.signature);
      expect((sentThought as typeof thought).thinking).toBe(thought.thinking);

      const stored = await listMessages(h.db, conversation.id);
      expect(stored.at(-1)!.content).toEqual([{ type: 'thinking', thinking: 'It came back.', signature: 'c2lnLTI=' }, text('It said hi.')]);
      const deltas = (await listEventsAfter(h.db, conversation.id, 0)).filter((e) => e.type === 'message.delta');
      const thinkingText = deltas.filter((e) => e.data.kind === 'thinking' && e.data.blockIndex === 0).map((e) => e.data.text as string);
      expect(thinkingText.join('')).toContain('The person wants an echo');
      expect(
        deltas
          .filter((e) => e.data.kind === undefined)
          .map((e) => e.data.text as string)
          .join(''),
      ).toContain('Echoing.');
      await env.close();
    });

    it('asks each listed model in its own kind: a budget where it is taken, else adaptive with the effort', async () => {
      const listing: ScriptedModelInfo[] = [
        { id: 'claude-takes-budget', capabilities: capabilities({ enabled: true, adaptive: true }), max_tokens: 64_000 },
        { id: 'claude-adaptive-only', capabilities: capabilities({ enabled: false, adaptive: true }), max_tokens: 64_000 },
      ];
      const thought = { type: 'thinking' as const, thinking: 'Hm.', signature: 'c2ln' };
      const model = await startScriptedModel(
        [{ blocks: [thought, text('Budgeted.')] }, { blocks: [thought, text('Adaptive.')] }, { blocks: [text('No thinking.')] }],
        { models: listing },
      );
      const models = createModelCatalog({ client: model.client, defaultModel: { id: 'claude-takes-budget', label: 'Budget' }, env: {} });
      const deps = engineDeps(h, { client: model.client, modelName: 'claude-takes-budget', models });
      // The app lists the models before a turn starts (lib/chat/model-choice.ts); the engine reads the kinds from that listing.
      expect((await models.list()).models.map((m) => [m.id, m.thinking])).toEqual([
        ['claude-takes-budget', 'budget'],
        ['claude-adaptive-only', 'adaptive'],
      ]);
      const { user, conversation } = await userAndConversation(h);
      const turn = async (m: string, thinking: typeof ON | null) => {
        await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: `ask ${m}`, model: m, thinking });
        await deps.idle();
      };
      await turn('claude-takes-budget', ON);
      await turn('claude-adaptive-only', { ...ON, effort: 'low' });
      await turn('claude-adaptive-only', { ...ON, enabled: false });
      const [budgeted, adaptive, off] = model.requests.map((r) => r.body as unknown as Record<string, unknown>);
      expect(budgeted).toMatchObject({ model: 'claude-takes-budget', thinking: { type: 'enabled', budget_tokens: 2000 } });
      expect(budgeted!.output_config).toBeUndefined();
      expect(adaptive).toMatchObject({ model: 'claude-adaptive-only', thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
      expect(JSON.stringify(adaptive!.thinking)).not.toContain('budget_tokens');
      expect(off!.thinking).toBeUndefined();
      expect(off!.output_config).toBeUndefined();
      // Both answers' thinking is stored and sent back as given.
      expect(JSON.stringify(off!.messages)).toContain('"signature":"c2ln"');
      await model.close();
    });

    it('the demo model thinks when asked, signed, and not when not', async () => {
      const deps = engineDeps(h, { client: createModelClient({ DEMO_MODEL_DELAY_MS: '0' }), modelName: 'demo' });
      const { user, conversation } = await userAndConversation(h);
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'Hello there', thinking: ON });
      await deps.idle();
      await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'And again' });
      await deps.idle();
      const answers = (await listMessages(h.db, conversation.id)).filter((m) => m.role === 'assistant');
      expect(answers[0]!.content[0]).toMatchObject({
        type: 'thinking',
        thinking: expect.stringContaining('Hello there'),
        signature: expect.stringMatching(/^demo-signature-/),
      });
      expect(answers[1]!.content.some((b) => b.type === 'thinking')).toBe(false);
    });
  });
}
