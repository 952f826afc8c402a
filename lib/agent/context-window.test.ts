import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';

import type { MessageRow } from '@/db/queries/messages';

import { TokenGauge } from './context/gauge';
import { promptTooLong } from './context/prompt-too-long';
import { stepRoom, withMaximum } from './context/room';
import { contextSettingsFrom, DEFAULT_CONTEXT_SETTINGS } from './context/settings';
import { STUB_MIN_TOKENS, stubChunks, withStubs } from './context/stubs';
import { plainSummary, summaryCuts, summaryMessage, transcriptOf } from './context/summarize';
import { toMessageParams } from './history';
import { READ_RESULT_TOOL_NAME } from './read-result-tool';
import { estimateRequestTokens } from './token-estimate';

const BIG = 'x'.repeat(4000);
let seq = 0;
const row = (role: 'user' | 'assistant', content: MessageRow['content'], runId: string | null = null): MessageRow => ({
  id: `m${++seq}`,
  conversationId: 'c',
  parentId: null,
  seq,
  role,
  content,
  runId,
  stopReason: null,
  origin: null,
  createdAt: new Date(0),
});
/** One turn of the person's: a question, a tool call, its (large) result, the answer. */
function turn(n: number, runId = `run-${n}`): MessageRow[] {
  return [
    row('user', [{ type: 'text', text: `question ${n}` }], runId),
    row('assistant', [{ type: 'tool_use', id: `tu_${n}`, name: 'fx__huge', input: { n } }], runId),
    row('user', [{ type: 'tool_result', tool_use_id: `tu_${n}`, content: [{ type: 'text', text: `${BIG} ${n}` }] }], runId),
    row('assistant', [{ type: 'text', text: `answer ${n}` }], runId),
  ];
}

describe('stubbing older tool results', () => {
  it('stubs whole chunks, oldest first; a longer history keeps the same chunks (the cached prefix holds)', () => {
    const history = [1, 2, 3, 4, 5].flatMap((n) => turn(n));
    const chunks = stubChunks(history, STUB_MIN_TOKENS * 5);
    expect(chunks.flat()).toEqual(['tu_1', 'tu_2', 'tu_3', 'tu_4', 'tu_5']);
    expect(chunks.length).toBeGreaterThan(1);
    const longer = stubChunks([...history, ...turn(6)], STUB_MIN_TOKENS * 5);
    expect(longer.slice(0, chunks.length - 1)).toEqual(chunks.slice(0, -1));
  });

  it('never stubs the last message (the model has not read it) nor a result too small to matter', () => {
    const small = row('user', [{ type: 'tool_result', tool_use_id: 'tu_s', content: 'ok' }]);
    const history = [...turn(1), row('assistant', [{ type: 'tool_use', id: 'tu_s', name: 'x', input: {} }]), small];
    expect(stubChunks(history, 1).flat()).toEqual(['tu_1']);
    const lastIsResult = turn(2).slice(0, 3);
    expect(stubChunks(lastIsResult, 1).flat()).toEqual([]);
  });

  it('a stub keeps the tool_use_id and the error flag, names the tool and how to read the result again', () => {
    const history = turn(1);
    (history[2]!.content[0] as Anthropic.ToolResultBlockParam).is_error = true;
    const stubbed = withStubs(history, new Set(['tu_1']));
    const block = stubbed[2]!.content[0] as Anthropic.ToolResultBlockParam;
    expect(block).toMatchObject({ type: 'tool_result', tool_use_id: 'tu_1', is_error: true });
    const text = JSON.stringify(block.content);
    expect(text).toContain('fx__huge');
    expect(text).toContain(READ_RESULT_TOOL_NAME);
    expect(text).toContain('"callId\\": \\"tu_1\\"');
    expect(text).not.toContain(BIG);
    // The stored message is untouched, and the same stub object comes back (its estimate is remembered).
    expect(JSON.stringify(history[2]!.content)).toContain(BIG);
    expect(withStubs(history, new Set(['tu_1']))[2]!.content[0]).toBe(block);
    expect(estimateRequestTokens({ messages: toMessageParams(stubbed) })).toBeLessThan(
      estimateRequestTokens({ messages: toMessageParams(history) }) / 3,
    );
  });
});

describe('summarizing the oldest turns', () => {
  it('cuts only before a message the person typed, and never inside the current run', () => {
    const history = [...turn(1), ...turn(2), ...turn(3, 'current')];
    const cuts = summaryCuts(history, 'current');
    expect(cuts.map((i) => history[i]!.content[0])).toEqual([
      { type: 'text', text: 'question 2' },
      { type: 'text', text: 'question 3' },
    ]);
    // A run whose own messages are not stored yet: up to the last message typed.
    expect(summaryCuts(history, 'not-started').map((i) => history[i]!.seq)).toEqual(cuts.map((i) => history[i]!.seq));
    expect(summaryCuts(turn(4, 'only'), 'only')).toEqual([]);
  });

  it('the summary goes first, as the person’s message, and the history stays valid', () => {
    const rest = turn(9);
    const params = toMessageParams([summaryMessage({ text: 'They asked for reports.', throughSeq: 12 }), ...rest]);
    expect(params[0]!.role).toBe('user');
    expect(JSON.stringify(params[0]!.content)).toContain('first 12 messages');
    expect(JSON.stringify(params[0]!.content)).toContain('They asked for reports.');
    expect(JSON.stringify(params[0]!.content)).toContain('question 9');
    expect(params.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('the transcript quotes each piece briefly, keeps the summary before it, and fits its budget', () => {
    const history = [1, 2, 3].flatMap((n) => turn(n));
    const t = transcriptOf('Earlier: hello.', history, 100_000);
    expect(t.split('\n')[0]).toBe('Summary so far: Earlier: hello.');
    expect(t).toContain('Person: question 2');
    expect(t).toContain('The assistant called fx__huge');
    expect(t).toContain('fx__huge returned:');
    expect(t.length).toBeLessThan(BIG.length * 3);
    const many = Array.from({ length: 200 }, (_, n) => turn(n)).flat();
    const cut = transcriptOf(null, many, 2000);
    expect(cut.length).toBeLessThanOrEqual(2000 * 4 + 100);
    expect(cut).toContain('characters left out');
    expect(cut).toContain('question 0');
    expect(cut).toContain('question 199');
  });

  it('without the model, a plain summary keeps what the person asked', () => {
    const text = plainSummary('Before that: greetings.', [...turn(1), ...turn(2)]);
    expect(text).toContain('Before that: greetings.');
    expect(text).toContain('- question 1');
    expect(text).toContain('- question 2');
  });

  it('never quotes what interactive views told the model as the person’s words, nor cuts before it', () => {
    const views = {
      ...row('user', [{ type: 'text', text: 'The person picked row 3.' }], 'run-2'),
      origin: {
        v: 1 as const,
        kind: 'view_context' as const,
        views: [{ toolCallId: 'c1', serverId: 's1', serverName: 'Apps', tool: 'show_rows', at: '2026-12-06T12:00:00.000Z' }],
      },
    };
    const history = [...turn(1), views, ...turn(2, 'run-2')];
    const transcript = transcriptOf(null, history, 100_000);
    expect(transcript).toContain('Interactive views of Apps (not the person): The person picked row 3.');
    expect(transcript).not.toContain('Person: The person picked row 3.');
    expect(plainSummary(null, history)).not.toContain('row 3');
    expect(summaryCuts(history, 'run-x')).not.toContain(history.indexOf(views));
  });
});

describe('the room, the estimate and the API’s answers', () => {
  it('the window comes from the limits; the answer’s max_tokens and the margin come off it', () => {
    const env = { MODEL_LIMITS: JSON.stringify({ small: { contextWindow: 10_000, maxOutputTokens: 1000 } }) };
    expect(stepRoom('small', 1000, { margin: 0.1 }, null, env)).toEqual({ contextWindow: 10_000, maxTokens: 1000, limit: 8100 });
    // Listed by the models endpoint: that wins.
    expect(stepRoom('small', 1000, { margin: 0.1 }, { contextWindow: 20_000 }, env).contextWindow).toBe(20_000);
    expect(stepRoom('unknown-model', 4096, DEFAULT_CONTEXT_SETTINGS, null, {}).contextWindow).toBe(200_000);
    // A max_tokens as large as the window still leaves a quarter of it.
    expect(stepRoom('small', 10_000, { margin: 0.1 }, null, env).limit).toBe(2250);
    // The window a refusal named replaces a larger one, never a smaller one.
    const room = stepRoom('small', 1000, { margin: 0.1 }, null, env);
    expect(withMaximum(room, 5000, { margin: 0.1 }).limit).toBe(3600);
    expect(withMaximum(room, 50_000, { margin: 0.1 })).toBe(room);
  });

  it('CONTEXT_WINDOW_MARGIN is a fraction from 0.01 to 0.5; anything else is refused by name', () => {
    expect(contextSettingsFrom({})).toEqual(DEFAULT_CONTEXT_SETTINGS);
    expect(contextSettingsFrom({ CONTEXT_WINDOW_MARGIN: '0.2' })).toEqual({ margin: 0.2 });
    for (const bad of ['0', '0.9', 'ten', '-0.1', '1e-1'])
      expect(() => contextSettingsFrom({ CONTEXT_WINDOW_MARGIN: bad })).toThrow(/CONTEXT_WINDOW_MARGIN must be a fraction/);
  });

  it('the estimate is calibrated by what the API counted; an implausible figure is not taken', () => {
    const gauge = new TokenGauge(`model-${Math.random()}`);
    expect(gauge.estimate(1000)).toBe(1000);
    gauge.calibrate(1000, 1300);
    expect(gauge.estimate(1000)).toBe(1300);
    gauge.calibrate(1000, 10); // a model that reports no real usage
    expect(gauge.estimate(1000)).toBe(1300);
  });

  it('a new drive starts from the ratio this process last saw for the model', () => {
    const model = `model-${Math.random()}`;
    new TokenGauge(model).calibrate(1000, 1500);
    expect(new TokenGauge(model).estimate(1000)).toBe(1500);
    expect(new TokenGauge(`${model}-other`).estimate(1000)).toBe(1000);
  });

  it('recognizes "prompt is too long" (400 invalid_request_error) with its figures, and nothing else', () => {
    const error = (status: number, message: string) =>
      Anthropic.APIError.generate(status, { type: 'error', error: { type: 'invalid_request_error', message } }, message, new Headers());
    expect(promptTooLong(error(400, 'prompt is too long: 210512 tokens > 200000 maximum'))).toEqual({ tokens: 210_512, maximum: 200_000 });
    expect(promptTooLong(error(400, 'max_tokens: must be at most 8192'))).toBeNull();
    expect(promptTooLong(error(529, 'prompt is too long: 2 tokens > 1 maximum'))).toBeNull();
    expect(promptTooLong(new Error('prompt is too long: 2 tokens > 1 maximum'))).toBeNull();
  });
});
