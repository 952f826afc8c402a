import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { verdictFor } from '@/lib/consent/policy';
import { openTestDb } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { startFilesystemServer, startMemoryServer, startPlaywrightMcp, type PopularServer } from '@/test/fixtures/popular-servers';
import { loopbackFetch } from '@/test/loopback-fetch';

import { createMcpGateway } from './gateway';
import { postgresSessionStore } from './legacy-sessions';
import { inputProblem, withInputDefaults } from './schema-guard';
import { toToolResult } from './to-tool-result';
import type { CallerIdentity, McpCallResult, McpServerConfig } from './types';

/**
 * Servers nobody here wrote, installed from npm and run as a person would run them (issue 27's
 * round against popular servers): each case below is one that round found broken, fixed since.
 * Time budget: about 15 s, most of it Chromium starting for Playwright MCP.
 */

const PAGE_HEADING = 'Tomatoes are watered at four';

describe('popular MCP servers through the gateway', () => {
  let h: DbHandle;
  let dir: string;
  let files: PopularServer;
  let memory: PopularServer;
  let playwright: PopularServer;
  let page: http.Server;
  let pageUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-popular-'));
    page = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Garden</title><h1>${PAGE_HEADING}</h1>`);
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/garden`;
    [h, files, memory, playwright] = await Promise.all([
      openTestDb('pglite'),
      startFilesystemServer(dir),
      startMemoryServer(path.join(dir, 'memory.jsonl')),
      startPlaywrightMcp(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([files?.close(), memory?.close(), playwright?.close(), h?.close()]);
    await new Promise((resolve) => page?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const config = (id: string, server: PopularServer, trust: McpServerConfig['trust'] = 'untrusted'): McpServerConfig => ({
    id,
    namespace: id,
    displayName: id,
    url: server.url,
    trust,
    timeoutMs: 20_000,
  });
  /** Each call through a gateway of its own, as each turn (or instance) has: only the database is shared. */
  const call = (server: McpServerConfig, caller: CallerIdentity, tool: string, args: Record<string, unknown>) =>
    createMcpGateway({ fetch: loopbackFetch, sessions: postgresSessionStore(h.db) }).callTool(server, tool, args, {
      caller,
      signal: new AbortController().signal,
      timeoutMs: 20_000,
    });
  const resultOf = async (outcome: Promise<Awaited<ReturnType<typeof call>>>): Promise<McpCallResult> => {
    const o = await outcome;
    if (o.kind !== 'result') throw new Error(`expected a result, got ${o.kind}: ${'message' in o ? o.message : ''}`);
    return o.result;
  };
  const textOf = (r: McpCallResult) => (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  async function caller(): Promise<CallerIdentity> {
    const { user, conversation } = await userAndConversation(h);
    return { userId: user.id, conversationId: conversation.id };
  }

  it('filesystem: a 27 KB file reaches the model once and whole, not as its text plus the same text as JSON', async () => {
    const line = 'The basil goes by the south window; water it when the soil is dry.\n';
    const body = line.repeat(Math.ceil(27_000 / line.length));
    writeFileSync(path.join(dir, 'garden.md'), body);
    const server = config('files', files);
    const who = await caller();
    const catalog = await createMcpGateway({ fetch: loopbackFetch }).listTools(server, who);
    const read = catalog.tools.find((t) => t.name === 'read_text_file');
    expect(read?.annotations).toMatchObject({ readOnlyHint: true });

    const result = await resultOf(call(server, who, 'read_text_file', { path: path.join(dir, 'garden.md') }));
    // The server sends the text and, as structuredContent, `{ content: <the same text> }`.
    expect(result.structuredContent).toMatchObject({ content: expect.stringContaining('south window') });
    const forModel = toToolResult({
      toolUseId: 't1',
      serverName: 'files',
      tool: 'read_text_file',
      outcome: result,
      outputSchema: read?.outputSchema,
    });
    expect(forModel.truncated).toBe(false);
    expect(forModel.totalChars).toBeLessThan(body.length * 1.05);
    expect(forModel.fullText?.split('south window').length).toBe(body.split('south window').length);
  }, 30_000);

  it('memory: what one turn writes the next turn reads; its deletes ask every time, even a trusted server’s', async () => {
    const server = config('memory', memory, 'trusted');
    const who = await caller();
    await resultOf(
      call(server, who, 'create_entities', {
        entities: [{ name: 'Basil', entityType: 'plant', observations: ['by the south window'] }],
      }),
    );
    const graph = textOf(await resultOf(call(server, who, 'read_graph', {})));
    expect(graph).toContain('by the south window');

    const { tools } = await createMcpGateway({ fetch: loopbackFetch }).listTools(server, who);
    const policy = (name: string) =>
      verdictFor({
        tool: { trust: 'trusted', annotations: tools.find((t) => t.name === name)!.annotations },
        grant: { state: 'active', autoApprove: true },
        overPlan: false,
        constraintUnmet: false,
        taintedBy: null,
      }).verdict;
    expect(policy('delete_entities')).toBe('ask');
    expect(policy('read_graph')).toBe('auto');
  }, 30_000);

  it('Playwright MCP keeps its browser between turns of a conversation: the snapshot after navigating shows the page', async () => {
    const server = config('browser', playwright);
    const who = await caller();
    await resultOf(call(server, who, 'browser_navigate', { url: pageUrl }));
    // Another turn, another gateway: the kept session (Mcp-Session-Id in Postgres) reaches the same browser.
    expect(textOf(await resultOf(call(server, who, 'browser_snapshot', {})))).toContain(PAGE_HEADING);
    // Another conversation has a session (and a browser page) of its own.
    expect(textOf(await resultOf(call(server, await caller(), 'browser_snapshot', {})))).not.toContain(PAGE_HEADING);
  }, 45_000);

  it('Playwright MCP: a field the server defaults and also requires is filled, not refused', async () => {
    const server = config('browser', playwright);
    const who = await caller();
    const { tools } = await createMcpGateway({ fetch: loopbackFetch }).listTools(server, who);
    const schema = tools.find((t) => t.name === 'browser_network_requests')!.inputSchema;
    // The model leaves `static` out; the schema says required, with a default of false.
    expect(inputProblem(schema, {})).toMatch(/static/);
    const filled = withInputDefaults(schema, {});
    expect(filled).toEqual({ input: { static: false }, problem: null });
    const result = await resultOf(call(server, who, 'browser_network_requests', filled.input));
    expect(result.isError ?? false).toBe(false);
  }, 30_000);
});
