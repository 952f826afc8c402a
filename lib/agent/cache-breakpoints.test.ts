import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';

import { countCacheBreakpoints, MAX_CACHE_BREAKPOINTS, withCacheBreakpoints } from './context/cache-breakpoints';

const EPHEMERAL = { type: 'ephemeral' };
const tool = (name: string, marked = false): Anthropic.Tool => ({
  name,
  input_schema: { type: 'object' },
  ...(marked ? { cache_control: { type: 'ephemeral' as const } } : {}),
});
const user = (text: string): Anthropic.MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Anthropic.MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** Where the breakpoints are: tools by name, messages by index and block index. */
function marks(request: { tools?: Anthropic.ToolUnion[]; messages: Anthropic.MessageParam[] }) {
  const tools = (request.tools ?? []).flatMap((t) => ('cache_control' in t && t.cache_control ? [(t as Anthropic.Tool).name] : []));
  const messages = request.messages.flatMap((m, i) =>
    typeof m.content === 'string' ? [] : m.content.flatMap((b, j) => ('cache_control' in b && b.cache_control ? [`${i}.${j}`] : [])),
  );
  return { tools, messages };
}

describe('cache breakpoints', () => {
  it('go on the last tool, the last message and the end of the previous request — nowhere else', () => {
    const history = [user('q1'), assistant('a1'), user('q2'), assistant('a2'), user('q3')];
    const out = withCacheBreakpoints({ tools: [tool('a', true), tool('b'), tool('c')], messages: history });
    expect(marks(out)).toEqual({ tools: ['c'], messages: ['2.0', '4.0'] });
    expect(countCacheBreakpoints(out)).toBe(3);
    expect((out.tools![2] as Anthropic.Tool).cache_control).toEqual(EPHEMERAL);
  });

  it('never go past four, counting the system prompt’s own', () => {
    const history = [user('q1'), assistant('a1'), user('q2'), assistant('a2'), user('q3')];
    const system: Anthropic.TextBlockParam[] = [
      { type: 'text', text: 'rules', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'more rules', cache_control: { type: 'ephemeral' } },
    ];
    const out = withCacheBreakpoints({ system, tools: [tool('a')], messages: history });
    expect(countCacheBreakpoints(out)).toBe(MAX_CACHE_BREAKPOINTS);
    // The system's two stay; the tool list and the newest prefix get the other two.
    expect(marks(out)).toEqual({ tools: ['a'], messages: ['4.0'] });
    const full = withCacheBreakpoints({
      system: [...system, { ...system[0]!, text: 'x' }, { ...system[0]!, text: 'y' }],
      messages: history,
    });
    expect(countCacheBreakpoints(full)).toBe(MAX_CACHE_BREAKPOINTS);
    expect(marks(full)).toEqual({ tools: [], messages: [] });
  });

  it('move breakpoints already in the history to where they belong now', () => {
    const old: Anthropic.MessageParam = { role: 'user', content: [{ type: 'text', text: 'q1', cache_control: { type: 'ephemeral' } }] };
    const out = withCacheBreakpoints({ messages: [old, assistant('a1'), user('q2'), assistant('a2'), user('q3')] });
    expect(marks(out).messages).toEqual(['2.0', '4.0']);
  });

  it('skip thinking blocks and empty text, marking the block before them', () => {
    const thinking: Anthropic.MessageParam = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool_use', id: 'tu_1', name: 'x', input: {} },
        { type: 'thinking', thinking: 'hm', signature: 'sig' },
      ],
    };
    const results: Anthropic.MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'ok' }] };
    const out = withCacheBreakpoints({ messages: [user('q'), thinking, results] });
    expect(marks(out).messages).toEqual(['0.0', '2.0']);
    const onlyThinking: Anthropic.MessageParam = { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'x' }] };
    expect(marks(withCacheBreakpoints({ messages: [onlyThinking, assistant(''), user('q')] })).messages).toEqual(['2.0']);
  });

  it('change nothing they are given: the stored history and the offered tools stay unmarked', () => {
    const history = [user('q1'), assistant('a1'), user('q2')];
    const tools = [tool('a', true), tool('b')];
    const before = JSON.stringify({ history, tools });
    withCacheBreakpoints({ tools, messages: history });
    expect(JSON.stringify({ history, tools })).toBe(before);
  });

  it('a string message becomes one text block carrying the breakpoint; no tools means no tool breakpoint', () => {
    const out = withCacheBreakpoints({ tools: [], messages: [{ role: 'user', content: 'hello' }] });
    expect(out.tools).toBeUndefined();
    expect(out.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello', cache_control: EPHEMERAL }] });
  });
});
