import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { mcpSessions } from '@/db/schema';
import { openTestDb } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { startServerEverything, type EverythingServer } from '@/test/fixtures/server-everything';
import { loopbackFetch } from '@/test/loopback-fetch';

import type { FetchLike } from './connection';
import { createMcpGateway } from './gateway';
import { postgresSessionStore } from './legacy-sessions';
import type { CallerIdentity, McpServerConfig } from './types';

/**
 * Kept sessions against a published 2025-era server (server-everything over Streamable HTTP,
 * SDK v1): what it answers a resumed session and one it does not know, seen on the wire. It
 * answers an unknown session 400, not the spec's 404: the gateway must take that as "forgotten" too.
 */

interface Sent {
  method: string;
  rpc?: string;
  sessionId?: string;
  version?: string;
  status: number;
}

describe('kept sessions with server-everything', () => {
  let h: DbHandle;
  let everything: EverythingServer;
  const sent: Sent[] = [];
  const recording: FetchLike = async (url, init) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    const response = await loopbackFetch(url, init);
    sent.push({
      method: init?.method ?? 'GET',
      rpc: body?.method,
      sessionId: headers.get('mcp-session-id') ?? undefined,
      version: headers.get('mcp-protocol-version') ?? undefined,
      status: response.status,
    });
    return response;
  };

  beforeAll(async () => {
    h = await openTestDb('pglite');
    everything = await startServerEverything('streamableHttp');
  }, 30_000);
  afterAll(async () => {
    await everything?.close();
    await h?.close();
  });

  const server = (): McpServerConfig => ({
    id: 'everything',
    namespace: 'everything',
    displayName: 'Everything',
    url: everything.url,
    trust: 'untrusted',
    timeoutMs: 10_000,
  });
  const echo = (caller: CallerIdentity, message: string) =>
    createMcpGateway({ fetch: recording, sessions: postgresSessionStore(h.db) })
      .callTool(server(), 'echo', { message }, { caller, signal: new AbortController().signal, timeoutMs: 10_000 })
      .then((o) => (o.kind === 'result' ? o.result.content?.[0]?.text : o.kind));

  it('resumes the session with no handshake, and opens a new one when the server does not know it (400 here)', async () => {
    const { user, conversation } = await userAndConversation(h);
    const caller = { userId: user.id, conversationId: conversation.id };
    expect(await echo(caller, 'one')).toBe('Echo: one');
    const [row] = await h.db.select().from(mcpSessions).where(eq(mcpSessions.conversationId, conversation.id));
    expect(row?.protocolVersion).toMatch(/^2025-/);

    sent.length = 0;
    expect(await echo(caller, 'two')).toBe('Echo: two');
    expect(sent.filter((s) => s.rpc === 'initialize')).toHaveLength(0);
    expect(sent.find((s) => s.rpc === 'tools/call')).toMatchObject({
      sessionId: row!.sessionId,
      version: row!.protocolVersion,
      status: 200,
    });

    // As if the server had restarted: it never issued this id.
    await h.db.update(mcpSessions).set({ sessionId: 'a-session-it-never-issued' }).where(eq(mcpSessions.conversationId, conversation.id));
    sent.length = 0;
    expect(await echo(caller, 'three')).toBe('Echo: three');
    // It answers 400 "No valid session ID provided" where the spec says 404: refused all the same, so sent once more.
    const calls = sent.filter((s) => s.rpc === 'tools/call' || s.rpc === 'initialize').map((s) => `${s.rpc} ${s.status}`);
    expect(calls).toEqual(['tools/call 400', 'initialize 200', 'tools/call 200']);
    const [fresh] = await h.db.select().from(mcpSessions).where(eq(mcpSessions.conversationId, conversation.id));
    expect(fresh?.sessionId).not.toBe('a-session-it-never-issued');
    expect(fresh?.sessionId).toBe(sent.find((s) => s.rpc === 'tools/call' && s.status === 200)?.sessionId);
  }, 30_000);
});
