import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { demoClient, textOf } from '@/test/fixtures/demo-model-client';

import { SUMMARY_SYSTEM_PROMPT } from '../summaries';

// The demo model declares its window like a real model (lib/model/limits.ts: `demo`, or
// MODEL_LIMITS), counts tokens, refuses a request over its window as the API does, summarizes
// deterministically, and keeps a prompt cache the host's breakpoints show in its usage.

const model = 'demo';
const long = (chars: number) => 'lorem ipsum '.repeat(Math.ceil(chars / 12)).slice(0, chars);

describe('the demo model and the context window', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('answers messages.countTokens with the count its answers report', async () => {
    const client = demoClient();
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: long(4000) }];
    const { input_tokens } = await client.messages.countTokens({ model, messages });
    expect(input_tokens).toBeGreaterThan(1000);
    expect(input_tokens).toBeLessThan(1100);
    const answer = await client.messages.create({ model, max_tokens: 50, messages });
    expect(Math.abs(answer.usage.input_tokens - input_tokens)).toBeLessThan(20);
  });

  it('refuses a request over its window with the API’s 400 "prompt is too long: N tokens > M maximum"', async () => {
    vi.stubEnv('MODEL_LIMITS', JSON.stringify({ demo: { contextWindow: 2000, maxOutputTokens: 1000 } }));
    const client = demoClient();
    const fits = await client.messages.create({ model, max_tokens: 20, messages: [{ role: 'user', content: long(4000) }] });
    expect(fits.stop_reason).toBeTruthy();
    const refused = await client.messages
      .create({ model, max_tokens: 20, messages: [{ role: 'user', content: long(10_000) }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    const err = refused as InstanceType<typeof Anthropic.BadRequestError>;
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/prompt is too long: \d+ tokens > 2000 maximum/);
    expect((err.error as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });

  it('summarizes a transcript deterministically: the summary before it, what the person asked, the tool calls', async () => {
    const client = demoClient();
    const transcript = [
      'Summary so far: They said hello.',
      'Person: Find the invoices of March.',
      '(The assistant called files__search with {"q":"invoices"})',
      '(files__search returned: 3 files)',
      'Assistant: Found three.',
      'Person: Sum them.',
    ].join('\n');
    const ask = () =>
      client.messages.create({ model, max_tokens: 200, system: SUMMARY_SYSTEM_PROMPT, messages: [{ role: 'user', content: transcript }] });
    const first = textOf(await ask());
    expect(first).toContain('They said hello.');
    expect(first).toContain('“Find the invoices of March.”; “Sum them.”');
    expect(first).toContain('1 tool call');
    expect(textOf(await ask())).toBe(first);
    const short = await client.messages.create({
      model,
      max_tokens: 5,
      system: SUMMARY_SYSTEM_PROMPT,
      messages: [{ role: 'user', content: transcript }],
    });
    expect(short.stop_reason).toBe('max_tokens');
  });

  it('reads a prefix cached at a breakpoint on the next request, and writes it the first time', async () => {
    const client = demoClient();
    const system = `Rules ${Math.random()}: ${long(6000)}`;
    const first: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'first', cache_control: { type: 'ephemeral' } }] },
    ];
    const a = await client.messages.create({ model, max_tokens: 20, system, messages: first });
    expect(a.usage.cache_read_input_tokens).toBe(0);
    expect(a.usage.cache_creation_input_tokens).toBeGreaterThan(1500);
    const again: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: 'second', cache_control: { type: 'ephemeral' } }] },
    ];
    // The same prefix, its breakpoint moved on: the old part is read, only the new part written.
    const b = await client.messages.create({
      model,
      max_tokens: 20,
      system,
      messages: [{ ...again[0]!, content: [{ type: 'text', text: 'first', cache_control: { type: 'ephemeral' } }] }, again[1]!, again[2]!],
    });
    expect(b.usage.cache_read_input_tokens).toBe(a.usage.cache_creation_input_tokens);
    expect(b.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(b.usage.cache_creation_input_tokens).toBeLessThan(50);
    // Without breakpoints nothing is cached.
    const c = await client.messages.create({ model, max_tokens: 20, system, messages: [{ role: 'user', content: 'first' }] });
    expect(c.usage.cache_read_input_tokens).toBe(0);
    expect(c.usage.cache_creation_input_tokens).toBe(0);
  });
});
