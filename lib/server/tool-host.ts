import type { Db } from '@/db/connection';
import type { ToolHost } from '@/lib/agent/tool-host';
import { allToolsOfOwnServers, type GrantSource } from '@/lib/consent/grant-source';
import { BUILTIN_SERVERS, builtinAuthInfo, builtinHandler, inProcessFetch, isBuiltinNamespace } from '@/lib/mcp/builtin';
import { withCatalogCache } from '@/lib/mcp/catalog-cache';
import { createMcpGateway } from '@/lib/mcp/gateway';

/**
 * The app's tools: the first-party servers, reached in-process through the same client code as
 * remote ones. User-added servers join `serversFor` with the servers work, together with the
 * URL-guarded fetch; until then the gateway has no remote fetch, so it refuses remote servers
 * and nothing can leave the machine.
 */
export function createAppToolHost(db: Db, grants: GrantSource = allToolsOfOwnServers): ToolHost {
  const getDb = async () => db;
  const gateway = createMcpGateway({
    inProcess: (server, caller) =>
      server.builtin && isBuiltinNamespace(server.namespace)
        ? inProcessFetch(builtinHandler(server.namespace, getDb), builtinAuthInfo(caller))
        : undefined,
  });
  return {
    gateway: withCatalogCache(gateway, db),
    serversFor: async () => [...BUILTIN_SERVERS],
    grants,
  };
}
