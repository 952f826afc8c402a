import type { Client } from '@modelcontextprotocol/client';

import { connect, endSession, sessionOf, type ConnectDeps, type ConnectOptions, type KeptSession } from './connection';
import type { DiscoveryMemo } from './discovery-memo';
import { keepsSessions, type LegacySessionStore } from './legacy-sessions';
import type { CallerIdentity, McpServerConfig } from './types';

/**
 * How the gateway gets a connection for one call. A new connection starts from what the last one
 * discovered (lib/mcp/discovery-memo.ts). A call in a conversation to a 2025-era Streamable HTTP
 * server goes on with the session the conversation's last call to it left (no handshake at all),
 * and the first call opens the session that is then kept (lib/mcp/legacy-sessions.ts). Failures
 * of the store are not the call's: without it, a call simply opens a session of its own.
 */

/** A call's connection, and the kept session it is on (none: the session, if any, ends with the call). */
export interface Opened {
  client: Client;
  held?: KeptSession;
  /** On a session opened before this call (kept, or another call's): the server may have forgotten it. */
  resumed?: boolean;
}

export interface CallConnections {
  open(server: McpServerConfig, caller: CallerIdentity, options: ConnectOptions): Promise<Opened>;
  /** The server refused a call on `gone` (it forgot the session): forgets it and opens a new one, kept in its place. */
  reopen(server: McpServerConfig, caller: CallerIdentity, options: ConnectOptions, gone: KeptSession): Promise<Opened>;
  /** The call on `held` succeeded: its idle time counts from now. */
  succeeded(server: McpServerConfig, caller: CallerIdentity, held: KeptSession): Promise<void>;
  /** The call on `held` failed: the session is not used again (the gateway ends it with the connection). */
  failed(server: McpServerConfig, caller: CallerIdentity, held: KeptSession): Promise<void>;
}

export function createCallConnections(deps: ConnectDeps, discoveries: DiscoveryMemo, sessions?: LegacySessionStore): CallConnections {
  /** Sessions being opened right now, per kept-session key: parallel calls of one step wait and share it. */
  const establishing = new Map<string, Promise<KeptSession | undefined>>();

  async function fresh(server: McpServerConfig, caller: CallerIdentity, options: ConnectOptions): Promise<Client> {
    const prior = discoveries.get(server, caller);
    const client = await connect(server, caller, { ...options, prior });
    if (!prior) discoveries.remember(server, caller, client);
    return client;
  }

  const resumed = async (
    server: McpServerConfig,
    caller: CallerIdentity,
    options: ConnectOptions,
    session: KeptSession,
  ): Promise<Opened> => ({
    client: await connect(server, caller, { ...options, session }),
    held: session,
    resumed: true,
  });

  /**
   * A new connection whose 2025-era session is kept for the conversation's next calls. Calls
   * that need one meanwhile wait for it and share it.
   */
  async function establish(server: McpServerConfig, caller: CallerIdentity, options: ConnectOptions): Promise<Opened> {
    const key = sessionKey(server, caller);
    const shared = await establishing.get(key);
    if (shared) return resumed(server, caller, options, shared);
    let settle: (kept: KeptSession | undefined) => void = () => {};
    const pending = new Promise<KeptSession | undefined>((resolve) => (settle = resolve));
    establishing.set(key, pending);
    try {
      const client = await fresh(server, caller, options);
      const session = sessionOf(client);
      const kept = session && sessions && (await sessions.keep(server, caller, session).catch(() => false)) ? session : undefined;
      settle(kept);
      return { client, held: kept };
    } finally {
      settle(undefined);
      if (establishing.get(key) === pending) establishing.delete(key);
    }
  }

  return {
    async open(server, caller, options) {
      // A server known to speak 2026-07-28 is stateless: nothing to look up.
      if (!sessions || !keepsSessions(server, caller) || discoveries.get(server, caller)?.kind === 'modern') {
        return { client: await fresh(server, caller, options) };
      }
      const shared = await establishing.get(sessionKey(server, caller));
      if (shared) return resumed(server, caller, options, shared);
      const found = await sessions.resume(server, caller).catch(() => ({}) as { session?: KeptSession; idle?: KeptSession });
      // Told beside the call, which goes on with a new session.
      if (found.idle) void endSession(server, caller, found.idle, deps);
      if (found.session) return resumed(server, caller, options, found.session);
      return establish(server, caller, options);
    },
    async reopen(server, caller, options, gone) {
      await sessions?.forget(server, caller, gone).catch(() => {});
      return establish(server, caller, options);
    },
    async succeeded(server, caller, held) {
      await sessions?.touch(server, caller, held).catch(() => {});
    },
    async failed(server, caller, held) {
      await sessions?.forget(server, caller, held).catch(() => {});
    },
  };
}

/** Kept sessions are per (user, conversation, server, URL): lib/mcp/legacy-sessions.ts. */
function sessionKey(server: McpServerConfig, caller: CallerIdentity): string {
  return `${caller.userId}\n${caller.conversationId ?? ''}\n${server.id}\n${server.url}`;
}
