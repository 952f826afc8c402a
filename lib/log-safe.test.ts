import { describe, expect, it } from 'vitest';

import { errorSummary, redactSecrets } from './log-safe';

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

describe('redactSecrets', () => {
  it('replaces the given secrets, bearer tokens and credential-like query parameters', () => {
    const text =
      'HTTP 400 from https://x.test/mcp?access_token=abc123&page=2: key sk-live-999 refused; Authorization: Bearer eyJhbGciOi.xyz';
    const out = redactSecrets(text, ['sk-live-999', 'ab']);
    expect(out).not.toContain('sk-live-999');
    expect(out).not.toContain('abc123');
    expect(out).not.toContain('eyJhbGciOi');
    expect(out).toContain('page=2');
    expect(out).toContain('access_token=[redacted]');
    expect(redactSecrets('nothing secret here')).toBe('nothing secret here');
  });
});
