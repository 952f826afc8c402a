import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { getRun } from '@/db/queries/runs';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { startScriptedModel, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { text } from '@/test/tool-harness';

import { cancelRun, startRun } from './engine';
import { DEFAULT_MODEL_RETRY, isRetryableModelError, retryDelayMs, retryingMessage } from './model-retry';

const apiError = (status: number, headers: Record<string, string> = {}) =>
  Anthropic.APIError.generate(status, { type: 'error', error: { type: 'x', message: 'x' } }, 'x', new Headers(headers));

describe('when a model call is tried again', () => {
  it('retries 429, 529, 5xx and a lost connection; never a refusal of the request or an abort', () => {
    for (const status of [429, 529, 500, 503]) expect(isRetryableModelError(apiError(status)), String(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 413]) expect(isRetryableModelError(apiError(status)), String(status)).toBe(false);
    expect(isRetryableModelError(new Anthropic.APIConnectionError({ message: 'ECONNREFUSED' }))).toBe(true);
    expect(isRetryableModelError(new Anthropic.APIUserAbortError())).toBe(false);
    expect(isRetryableModelError(new Error('something else'))).toBe(false);
  });

  it('waits what the server asks (retry-after-ms, retry-after in seconds or as a date), else 1 s, 2 s, 4 s', () => {
    expect(retryDelayMs(apiError(529, { 'retry-after': '4' }), 1, 0)).toBe(4000);
    expect(retryDelayMs(apiError(429, { 'retry-after-ms': '1500', 'retry-after': '9' }), 1, 0)).toBe(1500);
    const now = Date.parse('2026-12-01T12:00:00Z');
    expect(retryDelayMs(apiError(503, { 'retry-after': 'Tue, 01 Dec 2026 12:00:03 GMT' }), 1, 0, DEFAULT_MODEL_RETRY, now)).toBe(3000);
    expect([1, 2, 3].map((attempt) => retryDelayMs(apiError(500), attempt, 0))).toEqual([1000, 2000, 4000]);
  });

  it('gives up past its retries, or when the wait would pass the cap', () => {
    expect(retryDelayMs(apiError(529), DEFAULT_MODEL_RETRY.maxRetries + 1, 0)).toBeNull();
    expect(retryDelayMs(apiError(529, { 'retry-after': '120' }), 1, 0)).toBeNull();
    expect(retryDelayMs(apiError(529, { 'retry-after': '10' }), 2, 55_000)).toBeNull();
    expect(retryDelayMs(apiError(400), 1, 0)).toBeNull();
  });

  it('says what happened and when it tries again', () => {
    expect(retryingMessage(apiError(529), 4000)).toBe('The model is busy (529); trying again in 4 s.');
    expect(retryingMessage(apiError(429), 1500)).toBe('The model’s rate limit was reached (429); trying again in 2 s.');
    expect(retryingMessage(new Anthropic.APIConnectionError({ message: 'x' }), 500)).toBe(
      'The model service could not be reached; trying again in 1 s.',
    );
  });
});

const overloaded = (retryAfter: string): ScriptedReply => ({
  status: 529,
  error: { type: 'overloaded_error', message: 'Overloaded' },
  headers: { 'retry-after': retryAfter },
});

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`the engine retries a model call that failed before answering, on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    async function turn(script: ScriptedReply[], opts: { stopAfterMs?: number } = {}) {
      const model = await startScriptedModel(script);
      const arrivals: number[] = [];
      const client = new Anthropic({
        apiKey: 'test-key',
        baseURL: model.url,
        maxRetries: 0,
        // Only the model calls: the engine may also list models or count tokens through the same client.
        fetch: (url, init) => (/\/v1\/messages$/.test(new URL(String(url)).pathname) && arrivals.push(Date.now()), fetch(url, init)),
      });
      const deps = engineDeps(h, { client, modelName: 'claude-test' });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hello' });
      if (opts.stopAfterMs !== undefined) {
        await new Promise((r) => setTimeout(r, opts.stopAfterMs));
        await cancelRun(deps, conversation.id);
      }
      await deps.idle();
      await model.close();
      const events = await listEventsAfter(h.db, conversation.id, 0);
      return { run: (await getRun(h.db, run.id))!, events, arrivals, requests: model.requests };
    }

    it('a 529 before the first byte is retried after its retry-after, said with run.retrying, and the turn completes', async () => {
      const t = await turn([overloaded('1'), { blocks: [text('Back.')] }]);
      expect(t.run).toMatchObject({ status: 'completed' });
      expect(t.requests).toHaveLength(2);
      expect(t.arrivals[1]! - t.arrivals[0]!).toBeGreaterThanOrEqual(950);
      const retrying = t.events.filter((e) => e.type === 'run.retrying');
      expect(retrying.map((e) => e.data)).toEqual([
        { attempt: 1, delayMs: 1000, status: 529, message: 'The model is busy (529); trying again in 1 s.' },
      ]);
      // Announced before the retry's own events, after the run started.
      const types = t.events.map((e) => e.type);
      expect(types.indexOf('run.retrying')).toBeGreaterThan(types.indexOf('run.started'));
      expect(types.indexOf('run.retrying')).toBeLessThan(types.indexOf('message.completed'));
    });

    it('gives up after its retries with the failure in words, the history still valid', async () => {
      const t = await turn([overloaded('0'), overloaded('0'), overloaded('0'), overloaded('0'), { blocks: [text('Too late.')] }]);
      expect(t.run).toMatchObject({ status: 'failed' });
      expect(t.run.error).toMatchObject({ code: 'model_overloaded' });
      expect(t.requests).toHaveLength(1 + DEFAULT_MODEL_RETRY.maxRetries);
      expect(t.events.filter((e) => e.type === 'run.retrying')).toHaveLength(DEFAULT_MODEL_RETRY.maxRetries);
    });

    it('a refused request (400) is not retried', async () => {
      const t = await turn([{ status: 400, error: { type: 'invalid_request_error', message: 'bad' } }, { blocks: [text('No.')] }]);
      expect(t.run).toMatchObject({ status: 'failed' });
      expect(t.requests).toHaveLength(1);
      expect(t.events.some((e) => e.type === 'run.retrying')).toBe(false);
    });

    it('Stop during the wait ends the turn at once, without another call', async () => {
      const started = Date.now();
      const t = await turn([overloaded('30'), { blocks: [text('Never sent.')] }], { stopAfterMs: 300 });
      expect(t.run).toMatchObject({ status: 'cancelled' });
      expect(t.requests).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });
}
