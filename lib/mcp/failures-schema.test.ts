import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { classifyFailure, describeFailure } from './failures';

describe('a reply that is not JSON-RPC (the SDK throws its schema error as is)', () => {
  const error = z.object({ jsonrpc: z.literal('2.0'), method: z.string() }).safeParse({ jsonrpc: '1.0', answer: 42 }).error!;

  it('is said in words, without the schema’s dump of issues', () => {
    const said = describeFailure('Notes', 'http://127.0.0.1:9/mcp?token=x', 'run "search"', error);
    expect(said).toBe('Notes (http://127.0.0.1:9) sent a reply that is not valid MCP (JSON-RPC) when asked to run "search".');
    expect(said).not.toMatch(/invalid_value|"code"/);
  });

  it('counts as a protocol error (something answered, not as an MCP server should)', () => {
    expect(classifyFailure(error)).toBe('protocol_error');
  });
});
