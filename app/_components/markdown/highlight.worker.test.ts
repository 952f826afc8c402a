import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { HighlightRequest, HighlightResult } from './highlight.worker';

// The highlight worker in plain Node: its global is a stand-in with the two members it uses, and
// the tokenizing is shiki's own (a grammar's first use takes a few hundred milliseconds).

type WorkerScope = { onmessage: ((event: { data: HighlightRequest }) => void) | null; postMessage(m: HighlightResult[]): void };

const posted: HighlightResult[][] = [];
const scope: WorkerScope = { onmessage: null, postMessage: (m) => void posted.push(m) };
const hadSelf = 'self' in globalThis;

beforeAll(async () => {
  (globalThis as unknown as { self: WorkerScope }).self = scope;
  await import('./highlight.worker');
});

afterAll(() => {
  if (!hadSelf) delete (globalThis as { self?: unknown }).self;
});

async function answers(count: number): Promise<HighlightResult[][]> {
  const deadline = Date.now() + 20_000;
  while (posted.flat().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return posted.splice(0);
}

describe('highlight worker', () => {
  it('answers the requests of one render in one message, in order, with both colour schemes', async () => {
    for (const [id, code] of [
      [1, 'const answer: number = 42;'],
      [2, 'export function double(n: number) {\n  return n * 2;\n}'],
      [3, 'let s = "x";'],
    ] as const)
      scope.onmessage!({ data: { id, code, lang: 'TS' } });
    const batches = await answers(3);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((r) => r.id)).toEqual([1, 2, 3]);
    const second = batches[0]![1]!.lines!;
    expect(second).toHaveLength(3);
    expect(second.map((l) => l.tokens.map((t) => t.content).join(''))).toEqual([
      'export function double(n: number) {',
      '  return n * 2;',
      '}',
    ]);
    const keyword = second[0]!.tokens.find((t) => t.content === 'export')!;
    expect(keyword.light).toMatch(/^#[0-9a-f]{6}$/i);
    expect(keyword.dark).toMatch(/^#[0-9a-f]{6}$/i);
    expect(keyword.light).not.toBe(keyword.dark);
  }, 30_000);

  it('answers null for a language shiki does not know, and later requests still get their own batch', async () => {
    scope.onmessage!({ data: { id: 4, code: 'whatever', lang: 'no-such-language' } });
    const [first] = await answers(1);
    expect(first).toEqual([{ id: 4, lines: null }]);
    scope.onmessage!({ data: { id: 5, code: 'x = 1', lang: 'python' } });
    const [second] = await answers(1);
    expect(second!.map((r) => r.id)).toEqual([5]);
    expect(second![0]!.lines?.[0]?.tokens.map((t) => t.content).join('')).toBe('x = 1');
  }, 30_000);
});
