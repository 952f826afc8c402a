import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { TINY_PNG_BASE64 } from '@/test/fixtures/fixture-tools';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { createMcpGateway } from './gateway';
import { toToolResult } from './to-tool-result';
import type { CallOptions, CallOutcome, McpServerConfig, ProgressUpdate } from './types';

/** The gateway against a real fixture server over HTTP on 127.0.0.1. */

let fx: FixtureServer;
const gateway = createMcpGateway({ fetch: loopbackFetch });
const caller = { userId: 'user-1', conversationId: 'conv-1' };
let server: McpServerConfig;

beforeAll(async () => {
  fx = await startFixtureServer({ pageSize: 4 });
  server = {
    id: 'srv-fx',
    namespace: 'fx',
    displayName: 'Fixture',
    url: fx.url,
    trust: 'untrusted',
    timeoutMs: 5_000,
    headers: { 'x-api-key': 'k-123' },
  };
});
afterAll(() => fx.close());

const options = (extra: Partial<CallOptions> = {}): CallOptions => ({
  caller,
  signal: new AbortController().signal,
  timeoutMs: 5_000,
  ...extra,
});

function resultOf(outcome: CallOutcome) {
  if (outcome.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

async function mapped(tool: string, args: Record<string, unknown> = {}) {
  const catalog = await gateway.listTools(server, caller);
  const def = catalog.tools.find((t) => t.name === tool);
  const outcome = await gateway.callTool(server, tool, args, options());
  const r = toToolResult({
    toolUseId: 'tu',
    serverName: server.displayName,
    tool,
    outcome: resultOf(outcome),
    outputSchema: def?.outputSchema,
  });
  const blocks = r.block.content as (Anthropic.TextBlockParam | Anthropic.ImageBlockParam)[];
  return { r, blocks, text: blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n') };
}

describe('listTools', () => {
  it('negotiates the modern era and lists every page in order, with normalized annotations', async () => {
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.error).toBeUndefined();
    expect(catalog.era).toBe('modern');
    expect(catalog).toMatchObject({ ttlMs: 0, cacheScope: 'private', truncated: false, skipped: [] });
    expect(catalog.tools.map((t) => t.name)).toEqual([
      'text',
      'image',
      'audio',
      'resource_link',
      'embedded_resource',
      'structured',
      'structured_invalid',
      'slow',
      'fail',
      'throws',
      'huge',
      'lying_readonly',
      'ask_input',
      'echo',
      'counter',
    ]);
    const lying = catalog.tools.find((t) => t.name === 'lying_readonly')!;
    expect(lying.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false });
    expect(lying.trust).toBe('untrusted');
    expect(catalog.tools.find((t) => t.name === 'structured')!.outputSchema).toMatchObject({ required: ['temperature', 'unit'] });
    expect(new Set(catalog.tools.map((t) => t.fingerprint)).size).toBe(15);
    // The configured credential header reached the server on every request.
    expect(fx.requests.length).toBeGreaterThan(4);
    expect(fx.requests.every((r) => r.headers['x-api-key'] === 'k-123')).toBe(true);
  });
});

describe('callTool: content mapping', () => {
  it('text', async () => {
    expect((await mapped('text')).text).toBe('<tool_output server="Fixture" tool="text">\nhello from the fixture\n</tool_output>');
  });

  it('image → an image block', async () => {
    const { blocks } = await mapped('image');
    expect(blocks[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: TINY_PNG_BASE64 } });
  });

  it('audio → a note', async () => {
    expect((await mapped('audio')).text).toContain('[audio (audio/wav, 44 bytes) omitted: audio cannot be passed to the model]');
  });

  it('resource_link → uri, name and type', async () => {
    expect((await mapped('resource_link')).text).toContain(
      '[resource link: todo.md <file:///notes/todo.md> (text/markdown) — The to-do list]',
    );
  });

  it('embedded resources → their text, or a note for a blob', async () => {
    const { text } = await mapped('embedded_resource');
    expect(text).toContain('[resource file:///notes/a.txt (text/plain)]\nembedded text body');
    expect(text).toContain('[resource file:///bin/b.dat (application/octet-stream): 10 bytes binary data, not shown]');
  });

  it('structured output once, validated', async () => {
    const { text } = await mapped('structured');
    expect(text).toBe('<tool_output server="Fixture" tool="structured">\n{"temperature":21.5,"unit":"C"}\n</tool_output>');
  });

  it('structured output that breaks its schema is flagged', async () => {
    const { text } = await mapped('structured_invalid');
    expect(text).toContain('"temperature":"warm"');
    expect(text).toMatch(/does not match the tool's output schema.*Field "temperature" must be of type number; received "warm"/);
  });

  it('a tool error (isError) is a normal result marked as an error', async () => {
    const { r, text } = await mapped('fail');
    expect(r.block.is_error).toBe(true);
    expect(text).toContain('the fail tool failed on purpose');
  });

  it('a huge result is cut with a marker; the full text is kept', async () => {
    const { r, text } = await mapped('huge');
    expect(r.truncated).toBe(true);
    expect(r.fullText).toHaveLength(200_000);
    expect(text).toContain('[… result truncated: 32000 of 200000 characters shown.]');
  });

  it('echo returns its arguments; a non-idempotent tool runs exactly once per call', async () => {
    expect(resultOf(await gateway.callTool(server, 'echo', { message: 'hi', n: 2 }, options())).content).toEqual([
      { type: 'text', text: '{"message":"hi","n":2}' },
    ]);
    const before = fx.calls.filter((c) => c.name === 'counter').length;
    const outcome = await gateway.callTool(server, 'counter', {}, options());
    expect(resultOf(outcome).content).toEqual([{ type: 'text', text: `count=${fx.state.counter}` }]);
    expect(fx.calls.filter((c) => c.name === 'counter').length).toBe(before + 1);
  });
});

describe('callTool: time', () => {
  it('progress resets the timeout: a tool that reports progress outlives a shorter timeout', async () => {
    const progress: ProgressUpdate[] = [];
    const outcome = await gateway.callTool(server, 'slow', { ms: 1_000 }, options({ timeoutMs: 400, onProgress: (p) => progress.push(p) }));
    expect(resultOf(outcome).content).toEqual([{ type: 'text', text: 'slept 1000 ms' }]);
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress[0]).toMatchObject({ total: 1_000, message: 'step 1' });
    expect(progress.at(-1)!.progress).toBeGreaterThan(progress[0]!.progress);
  });

  it('a silent slow tool times out, and the server sees the request go away', async () => {
    const started = Date.now();
    const outcome = await gateway.callTool(server, 'slow', { ms: 3_000, progress: false }, options({ timeoutMs: 300 }));
    expect(outcome).toEqual({ kind: 'timeout', message: 'Fixture did not answer "slow" and sent no progress for 0.3 s.' });
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(() => fx.calls.filter((c) => c.name === 'slow').at(-1)?.aborted).toBe(true);
  });

  it('the overall cap stops a tool even while progress keeps coming', async () => {
    // Progress every ~100 ms keeps the 0.8 s timeout from firing; the 1.5 s cap still does.
    const started = Date.now();
    const outcome = await gateway.callTool(server, 'slow', { ms: 6_000 }, options({ timeoutMs: 800, maxTotalTimeoutMs: 1_500 }));
    expect(outcome).toEqual({ kind: 'timeout', message: '"slow" on Fixture ran past the overall limit of 1.5 s.' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('abort → cancelled (not timeout), and the server sees it', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 250);
    const outcome = await gateway.callTool(server, 'slow', { ms: 3_000 }, options({ signal: controller.signal }));
    expect(outcome).toEqual({ kind: 'cancelled', message: 'The call to "slow" on Fixture was cancelled.' });
    await expect.poll(() => fx.calls.filter((c) => c.name === 'slow').at(-1)?.aborted).toBe(true);
  });

  it('an already-aborted signal never reaches the server', async () => {
    const before = fx.calls.length;
    const outcome = await gateway.callTool(server, 'counter', {}, options({ signal: AbortSignal.abort() }));
    expect(outcome.kind).toBe('cancelled');
    expect(fx.calls.length).toBe(before);
  });
});

describe('callTool: input_required', () => {
  it('round trip: list → call → input_required → resume with the answer → result', async () => {
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.tools.some((t) => t.name === 'ask_input')).toBe(true);
    const args = { question: 'Favourite colour?' };
    const first = await gateway.callTool(server, 'ask_input', args, options());
    if (first.kind !== 'input_required') throw new Error(JSON.stringify(first));
    expect(first.inputRequests).toEqual({
      answer: {
        method: 'elicitation/create',
        params: expect.objectContaining({
          mode: 'form',
          message: 'Favourite colour?',
          requestedSchema: expect.objectContaining({ required: ['answer'] }),
        }),
      },
    });
    expect(first.requestState).toMatch(/^v1\./);

    const resumed = await gateway.callTool(
      server,
      'ask_input',
      args,
      options({
        resume: { inputResponses: { answer: { action: 'accept', content: { answer: 'blue' } } }, requestState: first.requestState },
      }),
    );
    expect(resultOf(resumed).content).toEqual([{ type: 'text', text: 'You answered: blue' }]);

    const tampered = await gateway.callTool(
      server,
      'ask_input',
      args,
      options({
        resume: { inputResponses: { answer: { action: 'accept', content: { answer: 'red' } } }, requestState: `${first.requestState}x` },
      }),
    );
    expect(tampered.kind).toBe('failed');
    expect(tampered.kind === 'failed' && tampered.message).toMatch(
      /^Fixture \(http:\/\/127\.0\.0\.1:\d+\) returned an error .*Invalid or expired requestState \(JSON-RPC error -32602\)/,
    );
  });
});
