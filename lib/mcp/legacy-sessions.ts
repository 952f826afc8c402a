import type { Db } from '@/db/connection';
import {
  deleteServerSessions,
  deleteSession,
  keepSession,
  takeConversationSessions,
  takeIdleSessions,
  takeStaleSession,
  touchLiveSession,
  touchSession,
  type McpSessionKey,
  type McpSessionRow,
} from '@/db/queries/mcp-sessions';

import { endSession, isBuiltin, type ConnectDeps, type KeptSession } from './connection';
import type { CallerIdentity, McpServerConfig } from './types';

/**
 * Sessions kept with 2025-era Streamable HTTP servers between calls and turns. Such a server
 * keeps its state per session (Playwright MCP's open page, a counter, a login), so a
 * conversation must come back to the session it started: one per (user, conversation, server,
 * server URL), remembered in Postgres so another instance, or this one after a restart, goes
 * on with it. The 2026-07-28 era is stateless and HTTP+SSE sessions die with their stream:
 * neither is kept (lib/mcp/gateway.ts decides).
 *
 * A session unused for `SESSION_IDLE_MS` is ended (HTTP DELETE) and forgotten, by the sweep or
 * by the next call that finds it; a server that forgets one sooner answers 404 and the gateway
 * opens a new one.
 */

export const SESSION_IDLE_MS = 10 * 60_000;
/** Sessions ended per sweep at most: the rest wait for the next one. */
const SWEEP_BATCH = 500;

export type { KeptSession };

/** What the gateway asks of the kept sessions, per server and caller (a caller without a conversation has none). */
export interface LegacySessionStore {
  /** The live session, marked used; one gone idle is forgotten and handed back to be ended. */
  resume(server: McpServerConfig, caller: CallerIdentity): Promise<{ session?: KeptSession; idle?: KeptSession }>;
  /**
   * Keeps a session just opened, unless a live one is kept already (another instance's, opened
   * at the same moment: the first written stays, and the other ends its own after its call).
   * True when this one is kept.
   */
  keep(server: McpServerConfig, caller: CallerIdentity, session: KeptSession): Promise<boolean>;
  /** A call on it succeeded: idle time counts from now. */
  touch(server: McpServerConfig, caller: CallerIdentity, session: KeptSession): Promise<void>;
  /** A call on it failed: not used again (a newer session kept meanwhile stays). */
  forget(server: McpServerConfig, caller: CallerIdentity, session: KeptSession): Promise<void>;
}

/** Whether calls of this caller to this server may keep a session: remote servers, in a conversation. */
export function keepsSessions(server: McpServerConfig, caller: CallerIdentity): boolean {
  return !isBuiltin(server) && caller.conversationId !== undefined;
}

function keyOf(server: McpServerConfig, caller: CallerIdentity): McpSessionKey {
  if (!caller.conversationId) throw new Error('A kept MCP session belongs to a conversation.');
  return { userId: caller.userId, conversationId: caller.conversationId, serverId: server.id, serverUrl: server.url };
}

export function postgresSessionStore(db: Db, opts: { idleMs?: number; now?: () => Date } = {}): LegacySessionStore {
  const idleMs = opts.idleMs ?? SESSION_IDLE_MS;
  const now = opts.now ?? (() => new Date());
  const staleBefore = (at: Date) => new Date(at.getTime() - idleMs);
  return {
    async resume(server, caller) {
      const key = keyOf(server, caller);
      const at = now();
      const live = await touchLiveSession(db, key, staleBefore(at), at);
      if (live) return { session: kept(live) };
      const idle = await takeStaleSession(db, key, staleBefore(at));
      return idle ? { idle: kept(idle) } : {};
    },
    async keep(server, caller, session) {
      const at = now();
      return keepSession(db, { ...keyOf(server, caller), ...session }, { now: at, staleBefore: staleBefore(at) });
    },
    touch: (server, caller, session) => touchSession(db, keyOf(server, caller), session.sessionId, now()),
    forget: (server, caller, session) => deleteSession(db, keyOf(server, caller), session.sessionId),
  };
}

function kept(row: McpSessionRow): KeptSession {
  return { sessionId: row.sessionId, protocolVersion: row.protocolVersion };
}

/** Ending kept sessions outside a call: the sweep (idle ones) and a conversation being deleted. */
export interface SessionEnding {
  /** Forgets every session idle past the timeout and tells each server (DELETE) where it can. */
  endIdle(now?: Date): Promise<{ forgotten: number; ended: number }>;
  /** Forgets a conversation's sessions and tells each server, before the conversation goes. */
  endConversation(userId: string, conversationId: string): Promise<{ forgotten: number; ended: number }>;
}

export interface SessionEndingDeps {
  db: Db;
  /** How servers are reached (the guarded fetch, OAuth): the DELETE goes as calls do. */
  connect: ConnectDeps;
  /**
   * The user's servers as they are now. A session whose server is gone, disabled or moved to
   * another URL is only forgotten: Switchboard does not reach a server the person turned away from.
   */
  serversOf(userId: string): Promise<McpServerConfig[]>;
  idleMs?: number;
}

export function sessionEnding(deps: SessionEndingDeps): SessionEnding {
  const idleMs = deps.idleMs ?? SESSION_IDLE_MS;

  async function end(rows: McpSessionRow[]): Promise<{ forgotten: number; ended: number }> {
    const servers = new Map<string, Promise<McpServerConfig[]>>();
    const serversOf = (userId: string) => {
      if (!servers.has(userId))
        servers.set(
          userId,
          deps.serversOf(userId).catch(() => []),
        );
      return servers.get(userId)!;
    };
    const outcomes = await Promise.all(
      rows.map(async (row) => {
        const server = (await serversOf(row.userId)).find((s) => s.id === row.serverId && s.url === row.serverUrl);
        if (!server || isBuiltin(server)) return false;
        return endSession(server, { userId: row.userId, conversationId: row.conversationId }, kept(row), deps.connect);
      }),
    );
    return { forgotten: rows.length, ended: outcomes.filter(Boolean).length };
  }

  return {
    async endIdle(now = new Date()) {
      return end(await takeIdleSessions(deps.db, new Date(now.getTime() - idleMs), SWEEP_BATCH));
    },
    async endConversation(userId, conversationId) {
      return end(await takeConversationSessions(deps.db, userId, conversationId));
    },
  };
}

/** A server's URL changed, it was removed, or the person's sign-in to it ended: its sessions are not resumed. */
export async function forgetServerSessions(db: Db, userId: string, serverId: string): Promise<void> {
  await deleteServerSessions(db, userId, serverId);
}
