import { describe, expect, it } from 'vitest';

import { estimateTokens, estimateToolTokens } from './token-estimate';

describe('estimateTokens', () => {
  it('is the JSON length divided by four, rounded up', () => {
    expect(estimateTokens('abcd')).toBe(2); // "abcd" with its quotes: 6 characters
    expect(estimateTokens({ a: 1 })).toBe(2); // {"a":1}: 7 characters
    expect(estimateTokens('x'.repeat(398))).toBe(100);
    expect(estimateTokens(undefined)).toBe(0);
  });

  it('counts a tool list by name, description and input schema only', () => {
    const tool = { name: 'notes__create', description: 'Creates a note.', input_schema: { type: 'object' as const } };
    const one = estimateToolTokens([tool]);
    expect(one).toBe(estimateTokens({ name: tool.name, description: tool.description, input_schema: tool.input_schema }));
    expect(estimateToolTokens([tool, tool, tool])).toBe(3 * one);
    // A cache breakpoint is not part of the definition the model reads.
    expect(estimateToolTokens([{ ...tool, cache_control: { type: 'ephemeral' } } as typeof tool])).toBe(one);
    expect(estimateToolTokens([])).toBe(0);
  });
});
