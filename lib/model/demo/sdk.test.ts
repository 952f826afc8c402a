import { describe, expect, it } from 'vitest';

import { demoClient, filesReadTool, notesSearchTool, textOf, toolUses, userSays } from '@/test/fixtures/demo-model-client';

// The demo model driven through the real SDK, the way Switchboard's chat
// route uses it: `messages.stream(...)` and `messages.create(...)`.
// Tool calls and failures have their own files (sdk-tools, sdk-failures).

const model = 'demo';

describe('demo model through the SDK: plain answers', () => {
  it('streams a text answer word by word and finishes with end_turn', async () => {
    const client = demoClient();
    const stream = client.messages.stream({ model, max_tokens: 500, messages: userSays('hello there') });
    const deltas: string[] = [];
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') deltas.push(event.delta.text);
    }
    const message = await stream.finalMessage();

    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe(textOf(message));
    expect(textOf(message)).toContain('offline demo model');
    expect(textOf(message)).toContain('You wrote: "hello there"');
    expect(textOf(message)).toContain('No tools were offered');
    expect(message.stop_reason).toBe('end_turn');
    expect(message.role).toBe('assistant');
    expect(message.model).toBe('demo');
    expect(message.id).toMatch(/^msg_demo_/);
    expect(message.usage.output_tokens).toBe(deltas.length);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types.at(-2)).toBe('message_delta');
  });

  it('lists the offered tools by name when none is named', async () => {
    const message = await demoClient()
      .messages.stream({
        model,
        max_tokens: 500,
        tools: [notesSearchTool, filesReadTool],
        messages: userSays('what can you do?'),
      })
      .finalMessage();
    expect(textOf(message)).toContain('- notes__search\n- files__read');
    expect(toolUses(message)).toHaveLength(0);
  });

  it('answers non-streaming messages.create with a JSON Message', async () => {
    const message = await demoClient().messages.create({ model, max_tokens: 500, messages: userSays('hi') });
    expect(message.type).toBe('message');
    expect(textOf(message)).toContain('You wrote: "hi"');
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBe(textOf(message).split(/\s+/).filter(Boolean).length);
  });

  it('stops at max_tokens, counting one token per word', async () => {
    const message = await demoClient()
      .messages.stream({ model, max_tokens: 4, messages: userSays('a long question about many things') })
      .finalMessage();
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage.output_tokens).toBe(4);
    expect(textOf(message).split(/\s+/)).toHaveLength(4);
  });
});

describe('demo model pacing', () => {
  it('with a small delay, text arrives as several chunks spread over time', async () => {
    const stream = demoClient(15).messages.stream({
      model,
      max_tokens: 500,
      messages: userSays('one two three'),
    });
    const arrivals: number[] = [];
    stream.on('text', () => arrivals.push(performance.now()));
    const message = await stream.finalMessage();

    expect(arrivals.length).toBeGreaterThan(5);
    expect(arrivals.length).toBe(message.usage.output_tokens);
    const spread = arrivals.at(-1)! - arrivals[0];
    // (chunks - 1) pauses of 15 ms; allow timer slack below.
    expect(spread).toBeGreaterThanOrEqual((arrivals.length - 1) * 15 * 0.8);
  });
});
