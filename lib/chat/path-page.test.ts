import { describe, expect, it } from 'vitest';

import { pageStart, startsTurn } from './path-page';

const typed = { role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] };
const answer = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'hello' }] };
const callAsked = { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'notes__search', input: {} }] };
const results = { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: 'found' }] };

describe('pageStart', () => {
  it('starts a short path at its beginning', () => {
    expect(pageStart([typed, answer], 60)).toBe(0);
    expect(pageStart([], 60)).toBe(0);
  });

  it('takes the last `limit` messages when they start a turn', () => {
    const path = [typed, answer, typed, answer, typed, answer];
    expect(pageStart(path, 2)).toBe(4);
    expect(pageStart(path, 4)).toBe(2);
  });

  it('moves back to the start of a turn it would cut', () => {
    // Turns: [0,1] and [2..6] (a question, a call, its result, another call, its result, the answer).
    const path = [typed, answer, typed, callAsked, results, callAsked, results, answer];
    expect(pageStart(path, 1)).toBe(2);
    expect(pageStart(path, 3)).toBe(2);
    expect(pageStart(path, 6)).toBe(2);
    expect(pageStart(path, 7)).toBe(0);
  });

  it('never starts at a message carrying only tool results', () => {
    expect(startsTurn(results)).toBe(false);
    expect(startsTurn(typed)).toBe(true);
    expect(startsTurn(answer)).toBe(false);
    // The person's message with an attachment and text is a turn's start.
    expect(startsTurn({ role: 'user', content: [] })).toBe(true);
  });
});
