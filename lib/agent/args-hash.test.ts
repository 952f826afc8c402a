import { describe, expect, it } from 'vitest';

import { argsHash } from './args-hash';

describe('argsHash', () => {
  it('is the same for the same input whatever the key order (RFC 8785)', () => {
    expect(argsHash({ b: 1, a: [true, null, 'x'] })).toBe(argsHash({ a: [true, null, 'x'], b: 1 }));
    expect(argsHash({ a: 1 })).not.toBe(argsHash({ a: 2 }));
  });

  it('hashes an input nested far deeper than any schema allows without overflowing the stack', () => {
    // A model's input is hashed before it is validated; canonicalize 5.x walks iteratively, while
    // 4.x recursed and threw "Maximum call stack size exceeded" at about 2,000 levels.
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(argsHash({ deep })).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a lone surrogate, which has no canonical form', () => {
    expect(() => argsHash({ s: '\ud800' })).toThrow(/surrogate/i);
  });
});
