import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startServerEverything, type EverythingMode, type EverythingServer } from '@/test/fixtures/server-everything';
import { loopbackFetch } from '@/test/loopback-fetch';

import { closeQuietly, connect } from './connection';
import { createMcpGateway } from './gateway';
import type { McpServerConfig } from './types';

/** The published reference server (SDK v1, legacy era) over both of its HTTP transports. */

const caller = { userId: 'user-1' };
const gateway = createMcpGateway({ fetch: loopbackFetch });

describe.each<[EverythingMode, typeof StreamableHTTPClientTransport | typeof SSEClientTransport]>([
  ['streamableHttp', StreamableHTTPClientTransport],
  ['sse', SSEClientTransport],
])('server-everything over %s', (mode, Transport) => {
  let everything: EverythingServer;
  let server: McpServerConfig;
  beforeAll(async () => {
    everything = await startServerEverything(mode);
    server = {
      id: `everything-${mode}`,
      namespace: 'everything',
      displayName: 'Everything',
      url: everything.url,
      trust: 'untrusted',
      timeoutMs: 10_000,
    };
  }, 30_000);
  afterAll(() => everything?.close());

  it('connects with the right transport on the legacy era', async () => {
    const client = await connect(server, caller, { fetch: loopbackFetch });
    try {
      expect(client.transport).toBeInstanceOf(Transport);
      expect(client.getProtocolEra()).toBe('legacy');
    } finally {
      await closeQuietly(client);
    }
  });

  it('lists its tools with their annotations', async () => {
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.error).toBeUndefined();
    expect(catalog.era).toBe('legacy');
    // What the servers page shows: the transport in use and the negotiated revision.
    expect(catalog.transport).toBe(mode === 'sse' ? 'sse' : 'streamable_http');
    expect(catalog.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(catalog.skipped).toEqual([]);
    const echo = catalog.tools.find((t) => t.name === 'echo');
    expect(echo).toMatchObject({
      description: 'Echoes back the input string',
      inputSchema: expect.objectContaining({ type: 'object', required: ['message'] }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: 'Echo Tool' },
    });
    expect(catalog.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get-sum', 'get-tiny-image']));
  });

  it('calls echo', async () => {
    const outcome = await gateway.callTool(
      server,
      'echo',
      { message: `hi over ${mode}` },
      {
        caller,
        signal: new AbortController().signal,
        timeoutMs: 10_000,
      },
    );
    expect(outcome).toEqual({
      kind: 'result',
      result: expect.objectContaining({ content: [{ type: 'text', text: `Echo: hi over ${mode}` }] }),
    });
  });

  it('returns its tiny image as something the model can take', async () => {
    const outcome = await gateway.callTool(
      server,
      'get-tiny-image',
      {},
      { caller, signal: new AbortController().signal, timeoutMs: 10_000 },
    );
    expect(outcome.kind).toBe('result');
    const content = outcome.kind === 'result' ? (outcome.result.content ?? []) : [];
    expect(content.some((c) => c.type === 'image' && c.mimeType === 'image/png')).toBe(true);
  });
});
