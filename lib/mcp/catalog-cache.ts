import type { Db } from '@/db/connection';
import { dropCatalogs, findFreshCatalog, findLatestCatalog, saveCatalog } from '@/db/queries/tool-catalogs';
import { parseStored, storedCatalog } from '@/db/stored-json';
import { errorSummary } from '@/lib/log-safe';

import type { ListedCatalog, SwitchboardGateway } from './gateway';
import type { CallerIdentity, McpServerConfig, ServerCatalog } from './types';

/** Legacy (2025-11-25) servers say nothing about caching; their lists are kept this long. */
export const LEGACY_CATALOG_TTL_MS = 5 * 60 * 1000;

export interface CachedGateway extends SwitchboardGateway {
  /**
   * The last good listing of this server for this caller, fresh or not, with no request to the
   * server (what the servers page shows); null when it was never listed at its current URL.
   */
  lastListing(server: McpServerConfig, caller: CallerIdentity): Promise<(ServerCatalog & { fetchedAt: Date }) | null>;
}

/**
 * A gateway whose tool lists are cached in Postgres, honoring what the server said: `ttlMs`
 * (0 = not reused) and `cacheScope` (private lists are kept per user). Failed listings are
 * never cached. `refresh` skips the cache and drops what was kept; so do a call naming a tool
 * the kept list lacks, and `notifications/tools/list_changed` heard on any connection (wire
 * `onToolsListChanged` of the gateway to `dropOnListChanged`).
 */
export function withCatalogCache(
  gateway: SwitchboardGateway,
  db: Db,
  opts: { legacyTtlMs?: number; now?: () => Date } = {},
): CachedGateway {
  const now = opts.now ?? (() => new Date());
  const parse = (row: { catalog: unknown; serverId: string; scope: string }) =>
    parseStored(storedCatalog, row.catalog, 'tool_catalogs.catalog', `${row.serverId}/${row.scope}`);

  return {
    async callTool(server, tool, args, callOpts) {
      // A call for a tool the kept list lacks: the list is stale, the next turn lists again.
      const hit = await findFreshCatalog(db, server.id, server.url, callOpts.caller.userId, now());
      if (hit && !parse(hit)?.tools.some((t) => t.name === tool)) await dropCatalogs(db, server.id);
      return gateway.callTool(server, tool, args, callOpts);
    },
    async listTools(server, caller, listOpts): Promise<ListedCatalog> {
      if (listOpts?.refresh) await dropCatalogs(db, server.id);
      else {
        const hit = await findFreshCatalog(db, server.id, server.url, caller.userId, now());
        const cached = hit && parse(hit);
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
    async lastListing(server, caller) {
      const row = await findLatestCatalog(db, server.id, server.url, caller.userId);
      const cached = row && parse(row);
      return cached
        ? { server, tools: cached.tools, skipped: cached.skipped, truncated: cached.truncated, fetchedAt: row.fetchedAt }
        : null;
    },
  };
}

/** For the gateway's `onToolsListChanged`: forget the server's kept lists (never throws). */
export function dropOnListChanged(db: Db): (server: McpServerConfig) => void {
  return (server) => {
    dropCatalogs(db, server.id).catch((err) => console.error('[catalog] could not drop a changed list:', errorSummary(err)));
  };
}
