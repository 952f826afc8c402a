import { describe, expect, it } from 'vitest';

import { errorSummary } from './log-safe';

describe('errorSummary', () => {
  it('keeps the name, code and message but never the query parameters', () => {
    const err = Object.assign(new Error('Failed query: insert into users values ($1, $2)\nparams: ada@example.test,scrypt$16384$secret'), {
      code: '23505',
    });
    const line = errorSummary(err);
    expect(line).toContain('Error [23505]: Failed query: insert into users');
    expect(line).not.toContain('ada@example.test');
    expect(line).not.toContain('scrypt$');
    const wrapped = new Error('outer', { cause: new Error('inner params: secret-value') });
    expect(errorSummary(wrapped)).toBe('Error: outer (cause: inner )');
    expect(errorSummary('plain')).toBe('plain');
  });
});
