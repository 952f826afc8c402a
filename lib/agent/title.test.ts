import { describe, expect, it } from 'vitest';

import { titleFrom } from '@/lib/model/demo/reply';
import { cleanTitle } from '@/lib/model/titles';

describe('cleanTitle', () => {
  it('keeps one line, without quotes, a "Title:" prefix, Markdown marks or a final period', () => {
    expect(cleanTitle('"Weekend plans."')).toBe('Weekend plans');
    expect(cleanTitle('Title: **Trip to Lisbon**\nextra')).toBe('Trip to Lisbon');
    expect(cleanTitle('  \n  # Budget review  ')).toBe('Budget review');
    expect(cleanTitle('   ')).toBeNull();
    expect(cleanTitle('x'.repeat(80))).toHaveLength(60);
  });
});

describe("the demo model's title", () => {
  it('is up to six words of the first line with words, capitalised, without code blocks or punctuation', () => {
    expect(titleFrom('hello! What can you do?')).toBe('Hello What can you do');
    expect(titleFrom('```ts\nconst x = 1;\n```\nplease review this function for me today')).toBe('Please review this function for me');
    expect(titleFrom('call notes__create {"title": "Groceries"}')).toBe('Call notes__create title Groceries');
  });
});
