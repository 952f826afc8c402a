import type { Db } from '@/db/connection';
import { dropCatalogs, findFreshCatalog, saveCatalog } from '@/db/queries/tool-catalogs';

import type { SwitchboardGateway } from './gateway';
import type { McpGateway, ServerCatalog } from './types';

/** Legacy (2025-11-25) servers say nothing about caching; their lists are kept this long. */
export const LEGACY_CATALOG_TTL_MS = 5 * 60 * 1000;

/**
 * A gateway whose tool lists are cached in Postgres, honoring what the server said: `ttlMs`
 * (0 = do not keep) and `cacheScope` (private lists are kept per user). Failed listings are
 * never cached. `refresh` skips the cache and drops what was kept.
 */
export function withCatalogCache(gateway: SwitchboardGateway, db: Db, opts: { legacyTtlMs?: number; now?: () => Date } = {}): McpGateway {
  const now = opts.now ?? (() => new Date());
  return {
    callTool: (server, tool, args, callOpts) => gateway.callTool(server, tool, args, callOpts),
    async listTools(server, caller, listOpts) {
      if (listOpts?.refresh) await dropCatalogs(db, server.id);
      else {
        const hit = await findFreshCatalog(db, server.id, server.url, caller.userId, now());
        if (hit) return { ...(hit.catalog as unknown as Omit<ServerCatalog, 'server'>), server };
      }
      const listed = await gateway.listTools(server, caller);
      const ttl = listed.era === 'legacy' ? (opts.legacyTtlMs ?? LEGACY_CATALOG_TTL_MS) : (listed.ttlMs ?? 0);
      if (!listed.error && ttl > 0) {
        await saveCatalog(db, {
          serverId: server.id,
          scope: listed.cacheScope === 'public' ? '*' : caller.userId,
          serverUrl: server.url,
          catalog: { tools: listed.tools, skipped: listed.skipped, truncated: listed.truncated },
          expiresAt: new Date(now().getTime() + ttl),
        });
      }
      return listed;
    },
  };
}
