import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { aboutVariable, CONFIG_NAMES } from '@/lib/config';

/**
 * The README's configuration table and lib/config/settings.ts name the same variables. The
 * table is written by hand — its rows group related variables and say more than a schema's
 * one-line description should (when to set one, what breaks without it) — and this keeps the two
 * from drifting apart.
 */
function readmeVariables(): { name: string; row: string }[] {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## Configuration\n'));
  const body = section.slice(0, section.indexOf('\n## ', 1));
  return body
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => ({ name: m[1]!, row })));
}

describe('the README configuration table', () => {
  const documented = readmeVariables();

  it('lists every variable lib/config declares, and only those', () => {
    expect(documented.map((d) => d.name).sort()).toEqual([...CONFIG_NAMES].sort());
  });

  it('says which are for tests only', () => {
    for (const { name, row } of documented) {
      if (aboutVariable(name as (typeof CONFIG_NAMES)[number]).testOnly) expect(row, name).toMatch(/Test only/);
    }
  });
});

describe('reading the environment', () => {
  it('happens in lib/config only (NODE_ENV, NEXT_RUNTIME and VITEST, set by the tools, aside)', () => {
    const files = ['proxy.ts', 'instrumentation.ts', ...['lib', 'app', 'db'].flatMap((dir) => sourceFiles(dir))];
    const reads = files
      .filter((file) => !file.startsWith('lib/config/') && !file.endsWith('.test.ts'))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ at: `${file}:${i + 1}`, line: line.trim() }))
          // Comments may talk about process.env.
          .filter(({ line }) => /process\.env/.test(line) && !/^(\/\/|\*|\/\*)/.test(line)),
      )
      .filter(({ line }) => !/process\.env\.(NODE_ENV|NEXT_RUNTIME|VITEST)\b/.test(line));
    expect(reads).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => path.join(dir, f));
}
