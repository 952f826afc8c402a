import { describe, expect, it } from 'vitest';

import { argsFromSchema } from './schema-args';

describe('argsFromSchema', () => {
  it('fills only required properties, preferring default, then enum, then type', () => {
    expect(
      argsFromSchema({
        type: 'object',
        properties: {
          a: { type: 'string', default: 'dflt', enum: ['x'] },
          b: { type: 'string', enum: ['first', 'second'] },
          c: { type: 'string' },
          d: { type: 'string', examples: ['sample'] },
          e: { type: 'number' },
          f: { type: 'integer', minimum: 3 },
          g: { type: 'boolean' },
          h: { type: 'array', items: { type: 'string' } },
          i: { type: 'object', properties: { deep: { type: 'integer' }, skip: { type: 'string' } }, required: ['deep'] },
          notRequired: { type: 'string' },
        },
        required: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'],
      }),
    ).toEqual({ a: 'dflt', b: 'first', c: 'example', d: 'sample', e: 1, f: 3, g: false, h: [], i: { deep: 1 } });
  });

  it('returns {} for no schema or no required properties', () => {
    expect(argsFromSchema(undefined)).toEqual({});
    expect(argsFromSchema({ type: 'object', properties: { q: { type: 'string' } } })).toEqual({});
  });

  it('handles nullable type lists, unions and local $refs', () => {
    expect(
      argsFromSchema({
        type: 'object',
        properties: {
          n: { type: ['null', 'integer'] },
          u: { anyOf: [{ type: 'boolean' }, { type: 'string' }] },
          r: { $ref: '#/$defs/Point' },
        },
        required: ['n', 'u', 'r'],
        $defs: { Point: { type: 'object', properties: { x: { type: 'number', minimum: 0 } }, required: ['x'] } },
      }),
    ).toEqual({ n: 1, u: false, r: { x: 0 } });
  });

  it('stops on a self-referencing schema instead of recursing forever', () => {
    const args = argsFromSchema({
      type: 'object',
      properties: { node: { $ref: '#' } },
      required: ['node'],
    });
    let depth = 0;
    let cursor: unknown = args;
    while (cursor && typeof cursor === 'object') {
      cursor = (cursor as { node?: unknown }).node;
      depth++;
    }
    expect(depth).toBeGreaterThan(1);
    expect(depth).toBeLessThan(20);
  });
});
