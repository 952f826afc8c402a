import { describe, expect, it } from 'vitest';

import { loadOncePerProcess } from './process-singleton';

describe('loadOncePerProcess', () => {
  it('loads once for every caller, concurrent ones included', async () => {
    let loads = 0;
    const load = async () => {
      loads += 1;
      return { n: loads };
    };
    const key = `test-once-${Math.random()}`;
    const [a, b] = await Promise.all([loadOncePerProcess(key, load), loadOncePerProcess(key, load)]);
    expect(a).toBe(b);
    expect(await loadOncePerProcess(key, load)).toBe(a);
    expect(loads).toBe(1);
  });

  it('does not keep a failed load: the next caller tries again', async () => {
    let attempts = 0;
    const load = async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not ready yet');
      return 'ready';
    };
    const key = `test-retry-${Math.random()}`;
    await expect(loadOncePerProcess(key, load)).rejects.toThrow('not ready yet');
    expect(await loadOncePerProcess(key, load)).toBe('ready');
    expect(await loadOncePerProcess(key, load)).toBe('ready');
    expect(attempts).toBe(2);
  });
});
