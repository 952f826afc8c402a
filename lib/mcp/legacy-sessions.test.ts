import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openPostgres, type DbHandle } from '@/db/connection';
import { deleteConversation } from '@/db/queries/conversations';
import { mcpSessions } from '@/db/schema';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { userAndConversation } from '@/test/engine-harness';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { startStatefulLegacyServer, type StatefulLegacyServer } from '@/test/fixtures/stateful-legacy-server';
import { loopbackFetch } from '@/test/loopback-fetch';

import { createMcpGateway } from './gateway';
import { forgetServerSessions, postgresSessionStore, SESSION_IDLE_MS, sessionEnding } from './legacy-sessions';
import type { CallerIdentity, CallOutcome, McpServerConfig } from './types';

/**
 * A 2025-era server that keeps state per session (as Playwright MCP keeps its page) keeps it
 * across a conversation's calls, on any instance: the session is kept in the database, resumed
 * without a handshake, replaced once when the server forgot it, ended when idle or when its
 * conversation goes. Real servers on 127.0.0.1, real databases.
 */

const config = (url: string, id = randomUUID()): McpServerConfig => ({
  id,
  namespace: 'stateful',
  displayName: 'Stateful',
  url,
  trust: 'untrusted',
  timeoutMs: 10_000,
});

function textOf(outcome: CallOutcome): string {
  if (outcome.kind !== 'result') return `[${outcome.kind}: ${'message' in outcome ? outcome.message : ''}]`;
  return (outcome.result.content ?? []).map((c) => (c.type === 'text' ? String(c.text) : `[${c.type}]`)).join('\n');
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`never happened: ${what}`);
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`kept 2025-era sessions on ${kind}`, () => {
    let h: DbHandle & { url?: string };
    let fixture: StatefulLegacyServer;
    beforeAll(async () => {
      h = await openTestDb(kind);
      fixture = await startStatefulLegacyServer();
    });
    afterAll(async () => {
      await fixture?.close();
      await h?.close();
    });

    /** One app instance: its own gateway (memo, sessions being opened) over the shared database. */
    const instance = (db = h.db, now?: () => Date) =>
      createMcpGateway({ fetch: loopbackFetch, sessions: postgresSessionStore(db, { now }) });
    const call = (gateway: ReturnType<typeof instance>, server: McpServerConfig, caller: CallerIdentity, tool: string, args = {}) =>
      gateway.callTool(server, tool, args, { caller, signal: new AbortController().signal, timeoutMs: 10_000 }).then(textOf);
    const kept = async (conversationId: string) => h.db.select().from(mcpSessions).where(eq(mcpSessions.conversationId, conversationId));
    async function newCaller(): Promise<CallerIdentity> {
      const { user, conversation } = await userAndConversation(h);
      return { userId: user.id, conversationId: conversation.id };
    }

    it('keeps the session between calls: the second call sees what the first left, and nothing is ended', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      const opened = fixture.opened.length;
      const gateway = instance();
      expect(await call(gateway, server, caller, 'remember', { word: 'kiwi' })).toBe('Remembered kiwi.');
      expect(await call(gateway, server, caller, 'recall')).toBe('kiwi');
      expect(fixture.opened.length - opened).toBe(1);
      const [row] = await kept(caller.conversationId!);
      expect(row?.sessionId).toBe(fixture.opened.at(-1));
      expect(row?.protocolVersion).toMatch(/^2025-/);
      expect(fixture.ended).not.toContain(row?.sessionId);
    });

    it('goes on with the session on another instance (or after a restart), from the database', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      expect(await call(instance(), server, caller, 'remember', { word: 'fig' })).toBe('Remembered fig.');
      const opened = fixture.opened.length;
      // A second connection pool to the same database where there is one: another process's view.
      const other = h.url ? await openPostgres(h.url, { max: 2 }) : undefined;
      try {
        expect(await call(instance(other?.db ?? h.db), server, caller, 'recall')).toBe('fig');
      } finally {
        await other?.close();
      }
      expect(fixture.opened.length).toBe(opened);
      // No handshake on the resumed session, yet every request names the version it negotiated.
      const [row] = await kept(caller.conversationId!);
      expect(fixture.versionsOnSessions.at(-1)).toBe(row?.protocolVersion);
      expect(fixture.versionsOnSessions.every((v) => v !== undefined && /^2025-/.test(v))).toBe(true);
    });

    it('keeps one session per conversation: another conversation starts with nothing', async () => {
      const server = config(fixture.url);
      const gateway = instance();
      const first = await newCaller();
      await call(gateway, server, first, 'remember', { word: 'plum' });
      expect(await call(gateway, server, { userId: first.userId, conversationId: (await newCaller()).conversationId }, 'recall')).toBe(
        'nothing',
      );
    });

    it('opens a new session and sends the call once more when the server forgot the session (404)', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      const gateway = instance();
      expect(await call(gateway, server, caller, 'count')).toBe('1');
      const [before] = await kept(caller.conversationId!);
      await fixture.forgetAll();
      const opened = fixture.opened.length;
      // Counted once: the 404 means the server did not run it, and the retry ran it on the new session.
      expect(await call(instance(), server, caller, 'count')).toBe('1');
      expect(fixture.opened.length - opened).toBe(1);
      const [after] = await kept(caller.conversationId!);
      expect(after?.sessionId).toBe(fixture.opened.at(-1));
      expect(after?.sessionId).not.toBe(before?.sessionId);
      expect(await call(gateway, server, caller, 'count')).toBe('2');
    });

    it('shares one new session between parallel calls of one step', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      const gateway = instance();
      const opened = fixture.opened.length;
      const results = await Promise.all([call(gateway, server, caller, 'count'), call(gateway, server, caller, 'count')]);
      expect(results.sort()).toEqual(['1', '2']);
      expect(fixture.opened.length - opened).toBe(1);
    });

    it('keeps the first session written when two instances open one at once; the other ends its own', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      const opened = fixture.opened.length;
      const results = await Promise.all([call(instance(), server, caller, 'count'), call(instance(), server, caller, 'count')]);
      expect(results).toEqual(['1', '1']);
      const mine = fixture.opened.slice(opened);
      expect(mine).toHaveLength(2);
      const rows = await kept(caller.conversationId!);
      expect(rows).toHaveLength(1);
      const loser = mine.find((id) => id !== rows[0]!.sessionId)!;
      expect(fixture.ended).toContain(loser);
      expect(fixture.live()).toContain(rows[0]!.sessionId);
      expect(await call(instance(), server, caller, 'count')).toBe('2');
    });

    it('ends a session idle past the timeout in the sweep: DELETE with its id, then forgotten', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      await call(instance(), server, caller, 'remember', { word: 'lime' });
      const [row] = await kept(caller.conversationId!);
      const ending = sessionEnding({ db: h.db, connect: { fetch: loopbackFetch }, serversOf: async () => [server] });
      // Not yet idle: nothing happens.
      expect((await ending.endIdle(new Date(Date.now() + SESSION_IDLE_MS - 60_000))).forgotten).toBe(0);
      const done = await ending.endIdle(new Date(Date.now() + SESSION_IDLE_MS + 1_000));
      expect(done.forgotten).toBeGreaterThanOrEqual(1);
      expect(fixture.ended).toContain(row!.sessionId);
      expect(fixture.live()).not.toContain(row!.sessionId);
      expect(await kept(caller.conversationId!)).toHaveLength(0);
      expect(await call(instance(), server, caller, 'recall')).toBe('nothing');
    });

    it('ends an idle session when the next call finds it, and opens a new one', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      await call(instance(), server, caller, 'remember', { word: 'pear' });
      const [row] = await kept(caller.conversationId!);
      const later = () => new Date(Date.now() + SESSION_IDLE_MS + 1_000);
      expect(await call(instance(h.db, later), server, caller, 'recall')).toBe('nothing');
      await until(() => fixture.ended.includes(row!.sessionId), 'the idle session ended');
      const [next] = await kept(caller.conversationId!);
      expect(next?.sessionId).not.toBe(row!.sessionId);
    });

    it('forgets a conversation’s sessions, and tells the server, when the conversation is deleted', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      await call(instance(), server, caller, 'remember', { word: 'date' });
      const [row] = await kept(caller.conversationId!);
      const ending = sessionEnding({ db: h.db, connect: { fetch: loopbackFetch }, serversOf: async () => [server] });
      expect(await ending.endConversation(caller.userId, caller.conversationId!)).toEqual({ forgotten: 1, ended: 1 });
      expect(fixture.ended).toContain(row!.sessionId);

      // And whatever is kept goes with the conversation's row.
      await call(instance(), server, caller, 'remember', { word: 'again' });
      expect(await kept(caller.conversationId!)).toHaveLength(1);
      await deleteConversation(h.db, caller.userId, caller.conversationId!);
      expect(await kept(caller.conversationId!)).toHaveLength(0);
    });

    it('does not reach a server that is gone or moved when ending its sessions: they are only forgotten', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      await call(instance(), server, caller, 'remember', { word: 'yuzu' });
      const [row] = await kept(caller.conversationId!);
      const ending = sessionEnding({ db: h.db, connect: { fetch: loopbackFetch }, serversOf: async () => [] });
      expect(await ending.endConversation(caller.userId, caller.conversationId!)).toEqual({ forgotten: 1, ended: 0 });
      expect(fixture.ended).not.toContain(row!.sessionId);
    });

    it('forgets the sessions of a server whose URL changed or that was removed', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      await call(instance(), server, caller, 'remember', { word: 'sloe' });
      expect(await kept(caller.conversationId!)).toHaveLength(1);
      await forgetServerSessions(h.db, caller.userId, server.id);
      expect(await kept(caller.conversationId!)).toHaveLength(0);
      expect(await call(instance(), server, caller, 'recall')).toBe('nothing');
    });

    it('ends the session of a failed call instead of keeping it', async () => {
      const server = config(fixture.url);
      const caller = await newCaller();
      const gateway = instance();
      await call(gateway, server, caller, 'count');
      const [row] = await kept(caller.conversationId!);
      const outcome = await gateway.callTool(server, 'count', {}, { caller, signal: AbortSignal.abort(), timeoutMs: 10_000 });
      expect(outcome.kind).toBe('cancelled');
      // Cancelled before anything was sent: the session stays, untouched.
      expect((await kept(caller.conversationId!))[0]?.sessionId).toBe(row!.sessionId);
      const failed = await gateway.callTool(
        server,
        'no_such_tool',
        {},
        { caller, signal: new AbortController().signal, timeoutMs: 10_000 },
      );
      expect(failed.kind).toBe('failed');
      expect(await kept(caller.conversationId!)).toHaveLength(0);
      expect(fixture.ended).toContain(row!.sessionId);
    });

    describe('servers that keep no session', () => {
      let modern: FixtureServer;
      let stateless: FixtureServer;
      beforeAll(async () => {
        modern = await startFixtureServer();
        stateless = await startFixtureServer({ legacyOnly: true });
      });
      afterAll(async () => {
        await modern?.close();
        await stateless?.close();
      });

      it('keeps nothing for a 2026-07-28 server or a 2025-era one without a session id', async () => {
        const caller = await newCaller();
        const gateway = instance();
        for (const url of [modern.url, stateless.url]) {
          const outcome = await gateway.callTool(
            config(url),
            'echo',
            { text: 'hi' },
            {
              caller,
              signal: new AbortController().signal,
              timeoutMs: 10_000,
            },
          );
          expect(outcome.kind).toBe('result');
        }
        expect(await kept(caller.conversationId!)).toHaveLength(0);
      });
    });
  });
}
