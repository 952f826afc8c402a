import { describe, expect, it } from 'vitest';

import { safeNextPath, withNext } from './next-path';

describe('safeNextPath', () => {
  it('keeps a path of this app, with its query and hash', () => {
    expect(safeNextPath('/share/abc_DEF-123')).toBe('/share/abc_DEF-123');
    expect(safeNextPath('/c/1?x=1#end')).toBe('/c/1?x=1#end');
  });

  it.each([
    ['another origin', 'https://evil.example/share/x'],
    ['a protocol-relative URL', '//evil.example/share/x'],
    ['a backslash browsers read as a slash', '/\\evil.example'],
    ['a scheme', 'javascript:alert(1)'],
    ['a relative path', 'share/x'],
    ['a control character', '/share/x\n'],
    ['an API path', '/api/auth/signout'],
    ['nothing', ''],
    ['not a string', ['/share/x']],
  ])('ignores %s', (_, raw) => {
    expect(safeNextPath(raw)).toBeNull();
  });

  it('normalizes a path that climbs out of the root back into it', () => {
    expect(safeNextPath('/../../share/x')).toBe('/share/x');
  });

  it('ignores a path too long to be a link of ours', () => {
    expect(safeNextPath(`/${'a'.repeat(2001)}`)).toBeNull();
  });
});

describe('withNext', () => {
  it('carries next along, encoded, or leaves the path alone', () => {
    expect(withNext('/sign-up', '/share/t?x=1')).toBe('/sign-up?next=%2Fshare%2Ft%3Fx%3D1');
    expect(withNext('/sign-up', null)).toBe('/sign-up');
  });
});
