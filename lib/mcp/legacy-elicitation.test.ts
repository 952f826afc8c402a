import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startLegacyElicitServer, type LegacyElicitServer } from '@/test/fixtures/legacy-elicit-server';
import { startServerEverything, type EverythingServer } from '@/test/fixtures/server-everything';
import { loopbackFetch } from '@/test/loopback-fetch';

import { closeQuietly, connect } from './connection';
import { createMcpGateway } from './gateway';
import type { CallOutcome, McpServerConfig } from './types';

/**
 * A 2025-era server asks the person mid-call (`elicitation/create`) while its call waits on the
 * open connection. Switchboard asks people durably (the 2026-07-28 `input_required` flow), not
 * within one call, so on such a connection it must not claim it can ask: a server then does not
 * ask (or its question fails with a reason), and the model is never told the person declined.
 */

const caller = { userId: 'user-1' };
const gateway = createMcpGateway({ fetch: loopbackFetch });
const options = () => ({ caller, signal: new AbortController().signal, timeoutMs: 10_000 });

const config = (id: string, url: string): McpServerConfig => ({
  id,
  namespace: id,
  displayName: id,
  url,
  trust: 'untrusted',
  timeoutMs: 10_000,
});

function textOf(outcome: CallOutcome): string {
  if (outcome.kind !== 'result') return `[${outcome.kind}]`;
  return (outcome.result.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

describe('elicitation on a 2025-era connection', () => {
  let fixture: LegacyElicitServer;
  beforeAll(async () => {
    fixture = await startLegacyElicitServer();
  });
  afterAll(() => fixture?.close());

  it('is not declared, so the server cannot take the person’s silence for a "decline"', async () => {
    const server = config('legacy', fixture.url);
    const client = await connect(server, caller, { fetch: loopbackFetch });
    try {
      expect(client.getProtocolEra()).toBe('legacy');
    } finally {
      await closeQuietly(client);
    }
    expect(fixture.declared.at(-1)?.elicitation).toBeUndefined();

    const outcome = await gateway.callTool(server, 'ask', {}, options());
    expect(outcome.kind).toBe('result');
    expect(fixture.outcomes.at(-1)).toMatch(/^error: .*elicitation/i);
    const said = textOf(outcome);
    expect(said).toMatch(/Could not ask for a name: .*elicitation/i);
    expect(said).not.toMatch(/decline/i);
  });

  it('a server that asks anyway gets an error saying nobody was asked, not an answer', async () => {
    const outcome = await gateway.callTool(config('legacy', fixture.url), 'ask_anyway', {}, options());
    expect(fixture.outcomes.at(-1)).toMatch(/^error: .*Switchboard cannot ask the person while a call waits; nobody was asked/);
    expect(textOf(outcome)).not.toMatch(/decline/i);
  });
});

describe('server-everything’s elicitation tools', () => {
  let everything: EverythingServer;
  let server: McpServerConfig;
  beforeAll(async () => {
    everything = await startServerEverything('streamableHttp');
    server = config('everything', everything.url);
  }, 30_000);
  afterAll(() => everything?.close());

  it('are not offered on a connection that cannot ask; a call to one fails, never "declined"', async () => {
    const catalog = await gateway.listTools(server, caller);
    expect(catalog.error).toBeUndefined();
    const names = catalog.tools.map((t) => t.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('trigger-elicitation-request');

    // A call from a catalog listed before (or by a model guessing the name).
    const outcome = await gateway.callTool(server, 'trigger-elicitation-request', {}, options());
    const said = textOf(outcome);
    expect(said).not.toMatch(/declin/i);
    expect(outcome.kind === 'result' ? outcome.result.isError : true).toBe(true);
  });
});
