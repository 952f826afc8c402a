import type { Db } from '@/db/connection';
import type { ToolHost } from '@/lib/agent/tool-host';
import { allToolsOfOwnServers, type GrantSource } from '@/lib/consent/grant-source';

import { BUILTIN_SERVERS, builtinAuthInfo, builtinHandler, inProcessFetch, isBuiltinNamespace } from './builtin';
import { withCatalogCache } from './catalog-cache';
import { createMcpGateway } from './gateway';

/**
 * The tools of the app: the first-party servers, reached in-process through the same client
 * code as remote ones. User-added servers join `serversFor` with the servers work; until then
 * no remote fetch is configured, so nothing can leave the machine unguarded.
 */
export function createDefaultToolHost(db: Db, grants: GrantSource = allToolsOfOwnServers): ToolHost {
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
