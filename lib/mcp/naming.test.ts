import { describe, expect, it } from 'vitest';

import { buildToolNames, candidateName, namespaceProblem } from './naming';

const LEGAL = /^[a-zA-Z0-9_-]{1,64}$/;
const t = (serverId: string, namespace: string, name: string) => ({ serverId, namespace, name });

describe('buildToolNames', () => {
  it('keeps names that already fit, and routes them back', () => {
    const names = buildToolNames([t('s1', 'notes', 'search'), t('s2', 'github', 'create_issue')]);
    expect(names.modelNameOf('s1', 'search')).toBe('notes__search');
    expect(names.modelNameOf('s2', 'create_issue')).toBe('github__create_issue');
    expect(names.byModelName['notes__search']).toEqual({ serverId: 's1', tool: 'search' });
  });

  it('replaces illegal characters and marks the name with a hash so it cannot pose as another', () => {
    const names = buildToolNames([t('s1', 'fs', 'read.file'), t('s1', 'fs', 'read file/ü')]);
    const a = names.modelNameOf('s1', 'read.file');
    const b = names.modelNameOf('s1', 'read file/ü');
    expect(a).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
    expect(b).toMatch(/^fs__read_file___[0-9a-f]{8}$/);
    for (const n of [a, b]) expect(n).toMatch(LEGAL);
    expect(names.byModelName[a]).toEqual({ serverId: 's1', tool: 'read.file' });
    expect(names.byModelName[b]).toEqual({ serverId: 's1', tool: 'read file/ü' });
  });

  it('shortens over-long names to 64 characters with a hash suffix, keeping them distinct', () => {
    const long1 = 'a'.repeat(80);
    const long2 = `${'a'.repeat(79)}b`;
    const names = buildToolNames([t('s1', 'ns', long1), t('s1', 'ns', long2)]);
    const n1 = names.modelNameOf('s1', long1);
    const n2 = names.modelNameOf('s1', long2);
    expect(n1).toHaveLength(64);
    expect(n2).toHaveLength(64);
    expect(n1).toMatch(LEGAL);
    expect(n1).not.toBe(n2);
    expect(names.byModelName[n2]!.tool).toBe(long2);
  });

  it('never collides: a literal name wins, the other gets a deterministic alternative', () => {
    // "x.y" mangles to a hashed name; forge a tool literally named like that mangled result.
    const mangled = candidateName('ns', 'x.y', 's1');
    const forged = mangled.slice('ns__'.length);
    const list = [t('s1', 'ns', 'x.y'), t('s2', 'ns', forged)];
    const a = buildToolNames(list);
    const b = buildToolNames([...list].reverse());
    expect(a.modelNameOf('s2', forged)).toBe(mangled); // exact literal keeps its name
    expect(a.modelNameOf('s1', 'x.y')).not.toBe(mangled);
    expect(a.modelNameOf('s1', 'x.y')).toMatch(LEGAL);
    // Same inputs in another order → the same names.
    expect(b.byModelName).toEqual(a.byModelName);
    expect(Object.keys(a.byModelName)).toHaveLength(2);
  });

  it('gives two servers with the same namespace and tool different names', () => {
    const names = buildToolNames([t('s1', 'dup', 'go'), t('s2', 'dup', 'go')]);
    const one = names.modelNameOf('s1', 'go');
    const two = names.modelNameOf('s2', 'go');
    expect(new Set([one, two]).size).toBe(2);
    expect(names.byModelName[one]).toEqual({ serverId: 's1', tool: 'go' });
    expect(names.byModelName[two]).toEqual({ serverId: 's2', tool: 'go' });
  });

  it('is stable across calls and independent of the neighbours of a mangled name', () => {
    const first = buildToolNames([t('s1', 'fs', 'read.file')]).modelNameOf('s1', 'read.file');
    const again = buildToolNames([t('s9', 'zz', 'other'), t('s1', 'fs', 'read.file')]).modelNameOf('s1', 'read.file');
    expect(again).toBe(first);
  });

  it('round-trips every name of a large mixed list', () => {
    const tools = Array.from({ length: 300 }, (_, i) => t(`s${i % 3}`, `ns${i % 3}`, i % 2 ? `tool.${i}` : `t${i}${'x'.repeat(i % 70)}`));
    const names = buildToolNames(tools);
    expect(Object.keys(names.byModelName)).toHaveLength(300);
    for (const tool of tools) {
      const name = names.modelNameOf(tool.serverId, tool.name);
      expect(name).toMatch(LEGAL);
      expect(names.byModelName[name]).toEqual({ serverId: tool.serverId, tool: tool.name });
    }
  });

  it('refuses to name a tool that was not in the list', () => {
    expect(() => buildToolNames([]).modelNameOf('s1', 'nope')).toThrow(/not in the list/);
  });
});

describe('namespaceProblem', () => {
  it('naming: a namespace ending with "_" is refused, so <namespace>__<tool> always splits one way', () => {
    // `a` + `_x` and `a_` + `x` would both want `a___x`; only the first can exist.
    expect(namespaceProblem('a_')).toMatch(/no "_" at the start or end/);
    expect(namespaceProblem('a')).toBeNull();
    expect(candidateName('a', '_x', 's1')).toBe('a___x');
  });

  it('accepts lower-case letters, digits, "-" and single "_" inside; refuses the rest with the rule in words', () => {
    for (const ok of ['notes', 'my-server', 'gh_issues', 'a1_b2-c3']) expect(namespaceProblem(ok)).toBeNull();
    for (const bad of ['', '_a', 'a__b', 'Notes', 'a.b', 'a b', 'x'.repeat(33)]) expect(namespaceProblem(bad)).not.toBeNull();
  });

  it('reserves the host namespace', () => {
    expect(namespaceProblem('switchboard')).toMatch(/reserved/);
  });
});
