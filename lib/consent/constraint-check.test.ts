import { describe, expect, it } from 'vitest';

import { constraintUnmetBy } from './constraint-check';
import { constraintFor, withoutDotSegments } from './constraints';

const prefix = (p: string, field = 'path') => constraintFor({ kind: 'path_prefix', field, prefix: p });

describe('constraintUnmetBy: a path prefix judged on the value as a server reads it', () => {
  it('refuses encoded dots, slashes, backslashes and percent signs in any case, and a backslash, saying why', () => {
    const api = prefix('https://api.example.com/v1/public/', 'url');
    expect(constraintUnmetBy(api, { url: 'https://api.example.com/v1/public/items' })).toBeNull();
    for (const url of [
      'https://api.example.com/v1/public/%2e%2e/%2e%2e/admin',
      'https://api.example.com/v1/public/%2E%2E/admin',
      'https://api.example.com/v1/public/..%2fadmin',
      'https://api.example.com/v1/public/%5c..%5cadmin',
      'https://api.example.com/v1/public/%252e%252e/admin',
      'https://api.example.com/v1/public/x\\admin',
    ]) {
      expect(constraintUnmetBy(api, { url }), url).toMatch(/^url: ".*" contains an encoded dot, slash, backslash or percent sign/);
    }
  });

  it('gives the prefix a trailing separator: "/notes" is itself or under "/notes/", never a sibling', () => {
    const notes = prefix('/notes');
    expect(constraintUnmetBy(notes, { path: '/notes' })).toBeNull();
    expect(constraintUnmetBy(notes, { path: '/notes/a.md' })).toBeNull();
    expect(constraintUnmetBy(notes, { path: '/notes-private/secret.md' })).toBe(
      'path: "/notes-private/secret.md" is not /notes or under /notes/.',
    );
    expect(constraintUnmetBy(notes, { path: '/notesx' })).not.toBeNull();
    const host = prefix('https://api.example.com', 'url');
    expect(constraintUnmetBy(host, { url: 'https://api.example.com.evil.test/x' })).toMatch(/is not https:\/\/api\.example\.com or under/);
    expect(constraintUnmetBy(host, { url: 'https://api.example.com/x' })).toBeNull();
    const folder = prefix('/notes/');
    expect(constraintUnmetBy(folder, { path: '/notes' })).not.toBeNull();
    expect(constraintUnmetBy(folder, { path: '/notes/' })).toBeNull();
  });

  it('decodes once and resolves dot segments before comparing', () => {
    const notes = prefix('/notes/');
    expect(constraintUnmetBy(notes, { path: '/notes/./a.md' })).toBeNull();
    expect(constraintUnmetBy(notes, { path: '/notes/%61.md' })).toBeNull(); // "a.md"
    expect(constraintUnmetBy(notes, { path: '/%6eotes/a.md' })).not.toBeNull(); // decoded it is under, but the text as written is not
    expect(constraintUnmetBy(notes, { path: '/notes/100%' })).toMatch(/"%" that is not a valid escape/);
    expect(constraintUnmetBy(notes, { path: '/notes/../etc' })).not.toBeNull(); // ".." is refused as written
    expect(withoutDotSegments('/a/b/../../../etc')).toBe('/etc');
    expect(withoutDotSegments('/a/./b/.')).toBe('/a/b/');
    expect(withoutDotSegments('a/../../b')).toBe('b');
  });

  it('leaves other forms to the schema guard, and no constraint allows anything', () => {
    expect(constraintUnmetBy(null, { path: '/x' })).toBeNull();
    const exact = constraintFor({ kind: 'exact', field: 'path', value: '/a%2e' });
    expect(constraintUnmetBy(exact, { path: '/a%2e' })).toBeNull();
    expect(constraintUnmetBy(exact, { path: '/b' })).toMatch(/must equal/);
    expect(constraintUnmetBy(prefix('/notes/'), { path: 3 })).toMatch(/path/);
  });
});
