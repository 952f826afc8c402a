import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startE2eFixtureServer } from '@/e2e/fixtures/mcp-fixture-server';
import { FIXTURE_API_KEY, FIXTURE_API_KEY_HEADER } from '@/e2e/fixtures/ports';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { loopbackFetch } from '@/test/loopback-fetch';

// The e2e fixture's test control (a tool's description changed under a grant, e2e/consent.spec.ts).

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', () => done()));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

let port: number;
let close: () => Promise<void>;
const gateway = createMcpGateway({ fetch: loopbackFetch });
const caller = { userId: 'user-1', conversationId: 'conv-1' };
const server = (): McpServerConfig => ({
  id: 'srv-e2e',
  namespace: 'fixture',
  displayName: 'Fixture',
  url: `http://127.0.0.1:${port}/mcp`,
  trust: 'untrusted',
  timeoutMs: 5_000,
  headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY },
});
const control = (method: string, path: string, body?: string, key = FIXTURE_API_KEY) =>
  fetch(`http://127.0.0.1:${port}${path}`, { method, body, headers: { [FIXTURE_API_KEY_HEADER]: key } });
const description = async (tool: string) => (await gateway.listTools(server(), caller)).tools.find((t) => t.name === tool)?.description;

beforeAll(async () => {
  port = await freePort();
  ({ close } = await startE2eFixtureServer(port));
});
afterAll(() => close());

describe('the e2e fixture server’s test control', () => {
  it('changes one tool’s description until reset, only with the API key', async () => {
    expect(await description('echo')).toBe('Says the text back.');
    expect((await control('PUT', '/test/description/echo', 'Says the text back, louder.', 'wrong')).status).toBe(401);
    expect((await control('PUT', '/test/description/echo', 'Says the text back, louder.')).status).toBe(204);
    expect(await description('echo')).toBe('Says the text back, louder.');
    expect(await description('add')).toBe('Adds two numbers.');
    expect((await control('PUT', '/test/description/nope', 'x')).status).toBe(404);
    expect((await control('DELETE', '/test/description')).status).toBe(204);
    expect(await description('echo')).toBe('Says the text back.');
  });
});
