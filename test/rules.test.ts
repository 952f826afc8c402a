import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Rules of docs/ARCHITECTURE.md that are not about which layer imports which (dependency-cruiser
 * checks those: `.dependency-cruiser.cjs`), checked on the source itself so that they hold for
 * files added later: `npm run lint` runs this file. Test files are exempt.
 */

const ROOT = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(ROOT, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(rel);
  }
  return out;
}

describe('route handlers stay thin', () => {
  const routes = sourceFiles('app/api').filter((f) => path.basename(f) === 'route.ts');

  it('finds the route handlers', () => {
    expect(routes.length).toBeGreaterThan(5);
  });

  it('keeps every route handler at 80 lines or fewer (logic lives in lib/, SQL in db/queries/)', () => {
    const long = routes
      .map((f) => ({ f, lines: readFileSync(path.join(ROOT, f), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > 80)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});

/** Each name a file imports from a module, as `module#name` (modules resolved as in importsOf). */
function namedImportsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+['"]([^'"]+)['"]/g)].flatMap((m) => {
    const spec = m[2]!;
    const mod = spec.startsWith('.') ? `@/${path.join(path.dirname(file), spec)}` : spec;
    return m[1]!
      .split(',')
      .map(
        (n) =>
          n
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!,
      )
      .filter(Boolean)
      .map((n) => `${mod}#${n}`);
  });
}

/** The source files (outside tests) that import `name` from `mod`. */
function importersOf(mod: string, name: string): string[] {
  return ['app', 'lib', 'db', 'scripts'].flatMap((dir) => sourceFiles(dir).filter((f) => namedImportsOf(f).includes(`${mod}#${name}`)));
}

describe('only the person creates, widens or extends a grant (issue 9, hard rule)', () => {
  // The chain from a request to a stored grant, each link with the only files allowed to use it:
  // PUT …/grants → setGrant; the decision allow_session → prepareSessionGrant; both → writeGrant
  // → replaceGrant. Switching a tool back on (switchOn) belongs to setGrant alone. Nothing the
  // model or a tool result reaches (lib/agent's tool phase, lib/mcp, the built-in servers) may
  // import any of them; a new importer must be added here on purpose.
  const ALLOWED: Record<string, string[]> = {
    '@/db/queries/grants#replaceGrant': ['lib/consent/grant-writes.ts'],
    '@/db/queries/grants#switchOn': ['lib/consent/grants-service.ts'],
    '@/lib/consent/grant-writes#writeGrant': ['lib/consent/grants-service.ts', 'lib/consent/session-grant.ts'],
    '@/lib/consent/grants-service#setGrant': ['app/api/conversations/[id]/grants/route.ts'],
    '@/lib/consent/session-grant#prepareSessionGrant': ['lib/agent/decide.ts'],
  };

  for (const [key, allowed] of Object.entries(ALLOWED)) {
    const [mod, name] = key.split('#') as [string, string];
    it(`${name} is used only by ${allowed.join(', ')}`, () => {
      expect(importersOf(mod, name).sort()).toEqual([...allowed].sort());
    });
  }

  it('the grant tables are written only through db/queries/grants.ts', () => {
    const users = ['app', 'lib', 'db', 'scripts'].flatMap((dir) =>
      sourceFiles(dir).filter((f) => /\btool(Grants|Switches)\b/.test(readFileSync(path.join(ROOT, f), 'utf8'))),
    );
    expect(users.sort()).toEqual(['db/queries/grants.ts', 'db/tables/grants.ts']);
  });

  it('finds named imports across lines, with type and as', () => {
    expect(namedImportsOf('lib/consent/grants-service.ts')).toContain('@/db/queries/grants#switchOn');
    expect(namedImportsOf('app/api/conversations/[id]/grants/route.ts')).toContain('@/lib/consent/grants-service#setGrant');
  });
});
