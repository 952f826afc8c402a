import { describe, expect, it } from 'vitest';

import { demoClient, filesReadTool, notesSearchTool, textOf, toolUses, userSays } from '@/test/fixtures/demo-model-client';

// Tool calls from the demo model, through the real SDK.

const model = 'demo';

describe('demo model through the SDK: tool calls', () => {
  it('calls a named tool with arguments built from its schema', async () => {
    const stream = demoClient().messages.stream({
      model,
      max_tokens: 500,
      tools: [notesSearchTool],
      messages: userSays('please use notes__search for me'),
    });
    const jsonDeltas: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
        jsonDeltas.push(event.delta.partial_json);
      }
    });
    const message = await stream.finalMessage();

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[0]).toMatchObject({ type: 'text', text: "I'll call notes__search." });
    const [call] = toolUses(message);
    expect(call.name).toBe('notes__search');
    expect(call.id).toMatch(/^toolu_demo_1_/);
    expect(call.input).toEqual({
      query: 'groceries',
      limit: 5,
      sort: 'relevance',
      includeArchived: false,
      tags: [],
      filter: { folder: 'inbox' },
    });
    expect(jsonDeltas.length).toBeGreaterThan(1);
    expect(JSON.parse(jsonDeltas.join(''))).toEqual(call.input);
  });

  it('uses explicit `call x {json}` arguments as given', async () => {
    const message = await demoClient()
      .messages.stream({
        model,
        max_tokens: 500,
        tools: [notesSearchTool],
        messages: userSays('call notes__search {"query": "taxes", "limit": 2}'),
      })
      .finalMessage();
    expect(toolUses(message).map((t) => t.input)).toEqual([{ query: 'taxes', limit: 2 }]);
  });

  it('calls a tool that was never offered, so hosts can test rejecting it', async () => {
    const message = await demoClient()
      .messages.stream({ model, max_tokens: 500, tools: [filesReadTool], messages: userSays('try evil__wipe now') })
      .finalMessage();
    expect(toolUses(message)).toMatchObject([{ name: 'evil__wipe', input: {} }]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('calls several tools at once, in order of mention, with unique ids', async () => {
    const message = await demoClient()
      .messages.stream({
        model,
        max_tokens: 500,
        tools: [notesSearchTool, filesReadTool],
        messages: userSays('read with files__read, then notes__search, then files__read again'),
      })
      .finalMessage();
    const calls = toolUses(message);
    expect(calls.map((c) => c.name)).toEqual(['files__read', 'notes__search']);
    expect(calls[0].input).toEqual({ path: 'example' });
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    expect(textOf(message)).toBe("I'll call files__read and notes__search.");
  });

  it('after tool results, quotes each result and error and calls no tool', async () => {
    const first = await demoClient()
      .messages.stream({
        model,
        max_tokens: 500,
        tools: [notesSearchTool, filesReadTool],
        messages: userSays('notes__search and files__read'),
      })
      .finalMessage();
    const [search, read] = toolUses(first);

    const second = await demoClient()
      .messages.stream({
        model,
        max_tokens: 500,
        tools: [notesSearchTool, filesReadTool],
        messages: [
          ...userSays('notes__search and files__read'),
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: search.id, content: [{ type: 'text', text: '3 notes found' }] },
              { type: 'tool_result', tool_use_id: read.id, content: 'ENOENT: no such file', is_error: true },
            ],
          },
        ],
      })
      .finalMessage();

    expect(second.stop_reason).toBe('end_turn');
    expect(toolUses(second)).toHaveLength(0);
    expect(textOf(second)).toBe('Tool results:\n- notes__search returned: 3 notes found\n- files__read failed: ENOENT: no such file');
  });
});
