import { LRUCache } from 'lru-cache';

import type { Db } from '@/db/connection';
import { dropCatalogs, findFreshCatalog, findLatestCatalog, saveCatalog } from '@/db/queries/tool-catalogs';
import { parseStored, storedCatalog, type StoredCatalog } from '@/db/stored-json';
import { errorSummary } from '@/lib/log-safe';

import type { ListedCatalog, SwitchboardGateway } from './gateway';
import type { CallerIdentity, McpServerConfig, ServerCatalog } from './types';

/** Legacy (2025-11-25) servers say nothing about caching; their lists are kept this long. */
export const LEGACY_CATALOG_TTL_MS = 5 * 60 * 1000;

/**
 * A fresh list read from Postgres is also held in memory this long (never past its own expiry),
 * so a turn's steps and calls read it once, not four times. Dropping a list (list_changed, a
 * stale tool, a refresh) clears it here at once; another instance may go on offering the old list
 * for up to this long, and a call to a tool gone from it drops the list there too.
 */
export const CATALOG_MEMO_MS = 15_000;

export interface CachedGateway extends SwitchboardGateway {
  /**
   * The last good listing of this server for this caller, fresh or not, with no request to the
   * server (what the servers page shows); null when it was never listed at its current URL.
   */
  lastListing(server: McpServerConfig, caller: CallerIdentity): Promise<(ServerCatalog & { fetchedAt: Date }) | null>;
  /** For the gateway's `onToolsListChanged`: forget the server's kept lists (never throws). */
  dropLists(server: McpServerConfig): void;
}

/**
 * A gateway whose tool lists are cached in Postgres, honoring what the server said: `ttlMs`
 * (0 = not reused) and `cacheScope` (private lists are kept per user). Failed listings are
 * never cached. `refresh` skips the cache and drops what was kept; so do a call naming a tool
 * the kept list lacks, and `notifications/tools/list_changed` heard on any connection (wire
 * `onToolsListChanged` of the gateway to `dropLists`).
 */
export function withCatalogCache(
  gateway: SwitchboardGateway,
  db: Db,
  opts: { legacyTtlMs?: number; now?: () => Date; memoMs?: number } = {},
): CachedGateway {
  const now = opts.now ?? (() => new Date());
  const memoMs = opts.memoMs ?? CATALOG_MEMO_MS;
  const parse = (row: { catalog: unknown; serverId: string; scope: string }) =>
    parseStored(storedCatalog, row.catalog, 'tool_catalogs.catalog', `${row.serverId}/${row.scope}`);
  const memo = new LRUCache<string, { catalog: StoredCatalog; until: number }>({ max: MAX_MEMO_ENTRIES });
  const memoKey = (server: McpServerConfig, userId: string) => `${server.id}\n${server.url}\n${userId}`;

  /** The fresh kept list for this caller, from memory when it was read a moment ago. */
  async function fresh(server: McpServerConfig, userId: string): Promise<StoredCatalog | null> {
    const key = memoKey(server, userId);
    const t = now().getTime();
    const held = memo.get(key);
    if (held && held.until > t) return held.catalog;
    memo.delete(key);
    const hit = await findFreshCatalog(db, server.id, server.url, userId, now());
    const catalog = hit && parse(hit);
    if (!hit || !catalog) return null;
    memo.set(key, { catalog, until: Math.min(hit.expiresAt.getTime(), t + memoMs) });
    return catalog;
  }

  async function drop(serverId: string): Promise<void> {
    forgetServer(memo, serverId);
    await dropCatalogs(db, serverId);
  }

  return {
    async callTool(server, tool, args, callOpts) {
      // A call for a tool the kept list lacks: the list is stale, the next turn lists again.
      const kept = await fresh(server, callOpts.caller.userId);
      if (kept && !kept.tools.some((t) => t.name === tool)) await drop(server.id);
      return gateway.callTool(server, tool, args, callOpts);
    },
    followTask: (server, taskId, opts) => gateway.followTask(server, taskId, opts),
    cancelTask: (server, taskId, opts) => gateway.cancelTask(server, taskId, opts),
    async listTools(server, caller, listOpts): Promise<ListedCatalog> {
      if (listOpts?.refresh) await drop(server.id);
      else {
        const cached = await fresh(server, caller.userId);
        if (cached) return { tools: cached.tools, skipped: cached.skipped, truncated: cached.truncated, server };
      }
      const listed = await gateway.listTools(server, caller);
      const ttl = listed.era === 'legacy' ? (opts.legacyTtlMs ?? LEGACY_CATALOG_TTL_MS) : (listed.ttlMs ?? 0);
      if (!listed.error) {
        // Kept even with ttl 0 (it expires at once, so no turn reuses it): the servers page shows the last listing.
        await saveCatalog(db, {
          serverId: server.id,
          scope: listed.cacheScope === 'public' ? '*' : caller.userId,
          serverUrl: server.url,
          catalog: { v: 1, tools: listed.tools, skipped: listed.skipped, truncated: listed.truncated },
          expiresAt: new Date(now().getTime() + Math.max(ttl, 0)),
        });
      }
      return listed;
    },
    dropLists(server) {
      drop(server.id).catch((err) => console.error('[catalog] could not drop a changed list:', errorSummary(err)));
    },
    async lastListing(server, caller) {
      const row = await findLatestCatalog(db, server.id, server.url, caller.userId);
      const cached = row && parse(row);
      return cached
        ? { server, tools: cached.tools, skipped: cached.skipped, truncated: cached.truncated, fetchedAt: row.fetchedAt }
        : null;
    },
  };
}

/** A bound on the memo: past it the least recently used entry goes. */
const MAX_MEMO_ENTRIES = 5000;

function forgetServer(memo: LRUCache<string, { catalog: StoredCatalog; until: number }>, serverId: string): void {
  for (const key of [...memo.keys()]) if (key.startsWith(`${serverId}\n`)) memo.delete(key);
}
