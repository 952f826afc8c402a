import type { Client, PriorDiscovery } from '@modelcontextprotocol/client';
import { LRUCache } from 'lru-cache';

import { transportOf } from './connection';
import type { CallerIdentity, McpServerConfig } from './types';

/**
 * What a server said when a connection first reached it (its `server/discover` answer, or that
 * it speaks only the legacy handshake), kept so the next call's fresh connection starts from it
 * instead of asking again: one round trip fewer per call. A connection per call stays (a
 * misbehaving server cannot poison a shared one); only the probe is skipped.
 *
 * Kept per (server, URL, caller) for a few minutes and dropped on any failure that is not the
 * tool's own answer, so a server that changed its protocol costs at most one failed call before
 * it is asked again.
 */
export interface DiscoveryMemo {
  get(server: McpServerConfig, caller: CallerIdentity): PriorDiscovery | undefined;
  /** After a connection that worked: what it learned (nothing for HTTP+SSE, which never probes). */
  remember(server: McpServerConfig, caller: CallerIdentity, client: Client): void;
  forget(server: McpServerConfig, caller: CallerIdentity): void;
}

export const DISCOVERY_TTL_MS = 5 * 60_000;
/** A bound: past it the least recently used entry goes. */
const MAX_ENTRIES = 5000;

export function createDiscoveryMemo(opts: { ttlMs?: number; now?: () => number; maxEntries?: number } = {}): DiscoveryMemo {
  const ttl = opts.ttlMs ?? DISCOVERY_TTL_MS;
  const now = opts.now ?? Date.now;
  const kept = new LRUCache<string, { prior: PriorDiscovery; until: number }>({ max: opts.maxEntries ?? MAX_ENTRIES });
  const keyOf = (server: McpServerConfig, caller: CallerIdentity) => `${server.id}\n${server.url}\n${caller.userId}`;

  return {
    get(server, caller) {
      const key = keyOf(server, caller);
      const entry = kept.get(key);
      if (!entry) return undefined;
      if (entry.until <= now()) {
        kept.delete(key);
        return undefined;
      }
      return entry.prior;
    },
    remember(server, caller, client) {
      const prior = priorOf(client);
      if (!prior) return;
      kept.set(keyOf(server, caller), { prior, until: now() + ttl });
    },
    forget(server, caller) {
      kept.delete(keyOf(server, caller));
    },
  };
}

function priorOf(client: Client): PriorDiscovery | undefined {
  // HTTP+SSE connections always run the legacy handshake themselves (lib/mcp/connection.ts).
  if (transportOf(client) === 'sse') return undefined;
  const era = client.getProtocolEra();
  if (era === 'modern') {
    const discover = client.getDiscoverResult();
    return discover ? { kind: 'modern', discover } : undefined;
  }
  // Legacy over Streamable HTTP: the `initialize` handshake still runs, the failed probe before it does not.
  return era === 'legacy' ? { kind: 'legacy' } : undefined;
}
