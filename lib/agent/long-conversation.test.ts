import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listHistorySummaries } from '@/db/queries/history-summaries';
import { listMessages } from '@/db/queries/messages';
import { getLatestRun } from '@/db/queries/runs';
import { staticGrants } from '@/lib/consent/grant-source';
import { createMcpGateway } from '@/lib/mcp/gateway';
import { SUMMARY_SYSTEM_PROMPT } from '@/lib/model/summaries';
import { openTestDb, TEST_DATABASES, type TestDbKind } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { scriptedTokens, startScriptedModel, type RecordedRequest, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { loopbackFetch } from '@/test/loopback-fetch';
import { historyProblem } from '@/test/message-history';
import { FIXTURE_SERVER_ID, fixtureConfig, text, toolUse } from '@/test/tool-harness';

import { countCacheBreakpoints, MAX_CACHE_BREAKPOINTS } from './context/cache-breakpoints';
import type { EngineDeps } from './deps';
import { startRun } from './engine';
import { READ_RESULT_TOOL_NAME } from './read-result-tool';

/**
 * Long conversations never fail for length (issue 11). A scripted model with a small window
 * (declared to the engine through MODEL_LIMITS, as an operator would) and a tokenizer of its own
 * (three characters a token: the engine estimates four, so it must calibrate), refusing anything
 * over its window as the API does. Every turn calls a real MCP tool whose result is ~1,500
 * characters, so the history outgrows the window every few turns.
 */
const MODEL = 'claude-scripted-small';
const WINDOW = 8000;
const MAX_TOKENS = 500;
/**
 * 400 turns on PGlite, as the issue asked; on Postgres the same engine needs fewer to stub results
 * and write two summaries (what is stored differently there), and CI runs both databases.
 */
const TURNS_ON: Record<TestDbKind, number> = {
  pglite: Number(process.env.LONG_TURNS ?? 400),
  postgres: Number(process.env.LONG_TURNS ?? 150),
};
const LEFT_OUT = 'to make room in the context window';

const isSummaryRequest = (r: RecordedRequest) => r.body.system === SUMMARY_SYSTEM_PROMPT;

/** Each turn: one tool call, then an answer that names the turn; summaries answered in a few words. */
function toolHeavyModel() {
  let n = 0;
  return (req: RecordedRequest): ScriptedReply => {
    n++;
    if (isSummaryRequest(req)) return { blocks: [text(`Summary ${n}: the person asked for reports; each was fetched.`)] };
    const last = req.body.messages.at(-1)!;
    const answered = typeof last.content !== 'string' && last.content.some((b) => b.type === 'tool_result');
    return answered
      ? { blocks: [text(`Here is the report (step ${n}).`)] }
      : { blocks: [toolUse(`toolu_${n}`, 'fx__huge', { chars: 1500 })] };
  };
}

async function setUp(h: DbHandle, fixture: FixtureServer, script: ((req: RecordedRequest) => ScriptedReply)[], window: number) {
  const model = await startScriptedModel(script, { contextWindow: window });
  const server = fixtureConfig(fixture.url);
  const deps = engineDeps(h, {
    client: model.client,
    modelName: MODEL,
    tools: {
      gateway: createMcpGateway({ fetch: loopbackFetch }),
      serversFor: async () => [server],
      grants: staticGrants({ [`${FIXTURE_SERVER_ID}/*`]: { autoApprove: true } }),
    },
  });
  deps.model = { ...deps.model, maxTokens: MAX_TOKENS };
  const { user, conversation } = await userAndConversation(h);
  const turn = async (k: number) => {
    await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: `Turn ${k}: fetch the report.` });
    await deps.idle();
    return getLatestRun(h.db, conversation.id);
  };
  return { model, deps: deps as EngineDeps, user, conversation, turn };
}

const turnRequests = (requests: RecordedRequest[]) => requests.filter((r) => !isSummaryRequest(r));
const sentText = (r: RecordedRequest) => JSON.stringify(r.body.messages);

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`long conversations on ${kind}`, () => {
    const TURNS = TURNS_ON[kind];
    let h: DbHandle;
    let fixture: FixtureServer;
    beforeAll(async () => {
      vi.stubEnv('MODEL_LIMITS', JSON.stringify({ [MODEL]: { contextWindow: WINDOW, maxOutputTokens: MAX_TOKENS } }));
      // Hundreds of turns in seconds: past the plan's pace of a person typing.
      vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ messagesPerMinute: 100_000, runsPerHour: 100_000, modelTokensPerDay: 1e12 }));
      h = await openTestDb(kind);
      fixture = await startFixtureServer();
    });
    afterAll(async () => {
      vi.unstubAllEnvs();
      await fixture?.close();
      await h?.close();
    });

    it(`${TURNS} tool-heavy turns complete within the window: old results stubbed, then the oldest turns summarized`, async () => {
      const respond = toolHeavyModel();
      const env = await setUp(
        h,
        fixture,
        Array.from({ length: TURNS * 3 }, () => respond),
        WINDOW,
      );
      const started = performance.now();
      for (let k = 1; k <= TURNS; k++) {
        const run = await env.turn(k);
        expect(run, `turn ${k}`).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
      }
      const seconds = (performance.now() - started) / 1000;
      console.log(`[long-conversation ${kind}] ${TURNS} turns in ${seconds.toFixed(1)} s`);
      await env.model.close();

      const requests = turnRequests(env.model.requests);
      expect(requests).toHaveLength(TURNS * 2);
      // Never over the window: not one request refused, and each one leaves room for the answer.
      expect(env.model.refusedTooLong).toEqual([]);
      for (const [i, r] of requests.entries()) {
        expect(scriptedTokens(r.body) + MAX_TOKENS, `request ${i}`).toBeLessThanOrEqual(WINDOW);
        expect(historyProblem(r.body.messages), `request ${i}`).toBeNull();
        expect(countCacheBreakpoints(r.body as Anthropic.MessageCreateParams), `request ${i}`).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      }
      // Both stages ran, stubs first: the first shortened request stubs results and summarizes nothing.
      const firstStubbed = requests.findIndex((r) => sentText(r).includes(LEFT_OUT));
      const firstSummarized = requests.findIndex((r) => sentText(r).includes('were summarized by Switchboard'));
      expect(firstStubbed).toBeGreaterThan(0);
      expect(firstSummarized).toBeGreaterThan(firstStubbed);
      // A stubbed history offers the tool that reads a left-out result again.
      expect(requests[firstStubbed]!.body.tools!.map((t) => t.name)).toContain(READ_RESULT_TOOL_NAME);
      const summaries = await listHistorySummaries(h.db, env.conversation.id);
      expect(summaries.length).toBeGreaterThanOrEqual(2);
      expect(env.model.requests.filter(isSummaryRequest)).toHaveLength(summaries.length);
      // Each summary covers more than the last, ends before a turn the person started, and replaces the one before it.
      const messages = await listMessages(h.db, env.conversation.id);
      for (const [i, s] of summaries.entries()) {
        if (i > 0) expect(s.throughSeq).toBeGreaterThan(summaries[i - 1]!.throughSeq);
        const next = messages.find((m) => m.seq === s.throughSeq + 1)!;
        expect(next.role).toBe('user');
        expect(next.content.some((b) => b.type === 'tool_result')).toBe(false);
      }
      // Nothing was deleted: every message is still stored for the person to read.
      expect(messages).toHaveLength(TURNS * 4);
      // The exact count is asked for only near the limit, not on ordinary steps.
      expect(env.model.tokenCounts.length).toBeLessThan(requests.length / 5);
    }, 300_000);

    it('a "prompt is too long" answer makes room and is retried once; the turn completes', async () => {
      // The engine is told the model reads 200k (a wrong table); the model really reads 8k and says so when refusing.
      vi.stubEnv('MODEL_LIMITS', JSON.stringify({ [MODEL]: { contextWindow: 200_000, maxOutputTokens: MAX_TOKENS } }));
      const respond = toolHeavyModel();
      const small = 5000;
      const env = await setUp(
        h,
        fixture,
        Array.from({ length: 60 }, () => respond),
        small,
      );
      let k = 0;
      while (!env.model.refusedTooLong.length && k < 12) {
        const run = await env.turn(++k);
        expect(run, `turn ${k}`).toMatchObject({ status: 'completed' });
      }
      await env.model.close();
      vi.stubEnv('MODEL_LIMITS', JSON.stringify({ [MODEL]: { contextWindow: WINDOW, maxOutputTokens: MAX_TOKENS } }));
      // Refused once, in the turn that first went over; the request after the refusal fits and is valid.
      expect(env.model.refusedTooLong).toHaveLength(1);
      const refused = env.model.requests.indexOf(env.model.refusedTooLong[0]!.request);
      const retried = env.model.requests.slice(refused + 1).find((r) => !isSummaryRequest(r))!;
      expect(scriptedTokens(retried.body)).toBeLessThanOrEqual(small);
      expect(historyProblem(retried.body.messages)).toBeNull();
      expect(sentText(retried)).toContain(LEFT_OUT);
      // That turn, and so the conversation, goes on: the last turn completed with its answer.
      const messages = await listMessages(h.db, env.conversation.id);
      expect(messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'end_turn' });
    }, 60_000);
  });
}
