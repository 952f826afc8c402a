import { LRUCache } from 'lru-cache';

import type { Db } from '@/db/connection';
import { listEnabledServers, pinReviewedTitles } from '@/db/queries/servers';
import type { ToolHost } from '@/lib/agent/tool-host';
import { readConfig, type Env } from '@/lib/config';
import type { GrantSource } from '@/lib/consent/grant-source';
import { storedGrants } from '@/lib/consent/stored-grants';
import { errorSummary } from '@/lib/log-safe';
import { boundedFetch } from '@/lib/mcp/bounded-fetch';
import { BUILTIN_SERVERS, builtinAuthInfo, builtinHandler, inProcessFetch, isBuiltinNamespace } from '@/lib/mcp/builtin';
import { reviewState } from '@/lib/mcp/catalog';
import { withCatalogCache, type CachedGateway } from '@/lib/mcp/catalog-cache';
import type { ConnectDeps, FetchLike } from '@/lib/mcp/connection';
import { createMcpGateway, type ListedCatalog, type SwitchboardGateway } from '@/lib/mcp/gateway';
import { postgresSessionStore, sessionEnding } from '@/lib/mcp/legacy-sessions';
import { gatewayOAuth, type OAuthStore } from '@/lib/mcp/oauth';
import type { CallerIdentity, McpServerConfig, ServerCatalog } from '@/lib/mcp/types';
import { createGuardedFetch } from '@/lib/mcp/url-guard';
import { processSingleton } from '@/lib/process-singleton';
import { getSecretBox, type SecretBox } from '@/lib/secrets/secret-box';
import { serverConfig } from '@/lib/servers/config';
import { ensureRequiredServers } from '@/lib/servers/org-servers';

/**
 * The app's tools: the first-party servers, reached in-process through the same client code as
 * remote ones, and the person's enabled servers, reached through the URL guard. Of a user-added
 * server, only tools the person reviewed (same fingerprint as when they enabled it) are offered.
 * Catalogs: remote ones cached in Postgres (lib/mcp/catalog-cache.ts); the built-in ones held
 * in memory for the life of the process (they change only with a deploy).
 */

export interface AppTools {
  host: ToolHost;
  /** Remote servers, every tool (unfiltered), catalogs cached in Postgres: the servers page uses it. */
  remote: CachedGateway;
  /** A built-in server's catalog, from memory after the first listing. */
  builtinListing(server: McpServerConfig, refresh?: boolean): Promise<ListedCatalog>;
  /** Every tool a server lists, reviewed or not (the host offers only reviewed ones): the Tools panel says why the rest wait. */
  listAll(server: McpServerConfig, caller: CallerIdentity): Promise<ServerCatalog>;
  /** How servers are reached (built-ins in-process, the rest through the URL guard and OAuth): prompts and resources go as calls do. */
  connectDeps: ConnectDeps;
  /** What people's OAuth credentials are read and refreshed with: the background refresh uses the calls' own. */
  oauthStore: () => Promise<OAuthStore>;
}

export interface AppToolsOptions {
  /** Default: the grants people gave, as stored (`lib/consent/stored-grants.ts`). */
  grants?: GrantSource;
  /** The fetch for remote servers; default: the URL guard (`remoteFetch()`). */
  fetch?: FetchLike;
  box?: () => Promise<SecretBox>;
  /** The fetch for OAuth requests (default: `remoteFetch()`, or `fetch` when given). */
  oauthFetch?: FetchLike;
}

/**
 * The guarded fetch for anything a person's server makes us request: loopback only with
 * MCP_ALLOW_LOOPBACK=true (tests). The MCP gateway takes it unbounded, because every connection
 * bounds its responses itself (lib/mcp/connection.ts) and reports the bound in its own words;
 * `remoteFetch` (bounded) is for other requests, e.g. OAuth metadata and tokens.
 */
/** A bound on the servers cache (least recently used first out): users with turns running on one instance at once are far fewer. */
const MAX_CACHED_USERS = 2000;

export function guardedRemoteFetch(env?: Env): FetchLike {
  return createGuardedFetch({ allowLoopback: readConfig(env).MCP_ALLOW_LOOPBACK });
}

export function remoteFetch(env?: Env): FetchLike {
  return boundedFetch(guardedRemoteFetch(env));
}

const builtinCatalogs = processSingleton('builtinCatalogs', () => new Map<string, Promise<ListedCatalog>>());

export function createAppTools(db: Db, opts: AppToolsOptions = {}): AppTools {
  const getDb = async () => db;
  const box = opts.box ?? (() => getSecretBox());
  // One store for calls and the background refresh, so a refresh in flight in this process is shared by both.
  let store: Promise<OAuthStore> | undefined;
  const oauthStore = () => (store ??= box().then((b) => ({ db, box: b, fetch: opts.oauthFetch ?? opts.fetch ?? remoteFetch() })));
  const connectDeps: ConnectDeps = {
    inProcess: (server, caller) =>
      server.builtin && isBuiltinNamespace(server.namespace)
        ? inProcessFetch(builtinHandler(server.namespace, getDb), builtinAuthInfo(caller))
        : undefined,
    fetch: opts.fetch ?? guardedRemoteFetch(),
    // OAuth requests (metadata, token) go through the same guard, bounded.
    oauth: gatewayOAuth(oauthStore),
  };
  // A change heard on any connection drops the kept lists (`remote` exists by the time one is heard).
  // 2025-era sessions are kept in Postgres between a conversation's calls, for any instance to resume.
  const gateway = createMcpGateway({
    ...connectDeps,
    sessions: postgresSessionStore(db),
    onToolsListChanged: (server) => remote.dropLists(server),
  });
  const remote = withCatalogCache(gateway, db);

  function builtinListing(server: McpServerConfig, refresh = false): Promise<ListedCatalog> {
    const kept = builtinCatalogs.get(server.id);
    if (kept && !refresh) return kept;
    // Built-in tools do not depend on the caller.
    const listing = gateway.listTools(server, { userId: 'builtin-catalog' }).then((c) => {
      if (c.error) builtinCatalogs.delete(server.id); // a failure is not kept
      return c;
    });
    builtinCatalogs.set(server.id, listing);
    return listing;
  }

  /** Each user's enabled servers as read at one `users.tools_rev`. */
  const servers = new LRUCache<string, { rev: number; list: McpServerConfig[] }>({ max: MAX_CACHED_USERS });

  const hostGateway: SwitchboardGateway = {
    async listTools(server, caller, listOpts) {
      if (server.builtin) return { ...(await builtinListing(server, listOpts?.refresh)), server };
      const listed = await remote.listTools(server, caller, listOpts);
      return onlyReviewed(db, listed, server);
    },
    callTool: (server, tool, args, callOpts) =>
      server.builtin ? gateway.callTool(server, tool, args, callOpts) : remote.callTool(server, tool, args, callOpts),
    followTask: (server, taskId, followOpts) => (server.builtin ? gateway : remote).followTask(server, taskId, followOpts),
    cancelTask: (server, taskId, cancelOpts) => (server.builtin ? gateway : remote).cancelTask(server, taskId, cancelOpts),
  };

  async function serversFor(userId: string, opts: { toolsRev?: number } = {}): Promise<McpServerConfig[]> {
    // Read at the same users.tools_rev (every change to a server bumps it): what was read then still holds.
    const cached = servers.get(userId);
    if (opts.toolsRev !== undefined && cached?.rev === opts.toolsRev) return cached.list;
    // A required shared server of the person's organizations is theirs from their first step after it (or they) arrived.
    await ensureRequiredServers({ db }, userId);
    const rows = await listEnabledServers(db, userId);
    const own: McpServerConfig[] = [];
    for (const row of rows) {
      try {
        own.push(serverConfig(row, await box()));
      } catch (err) {
        // Its credentials cannot be opened (the key changed): leave the server out rather than fail the turn.
        console.error(`[tools] server ${row.id} left out:`, errorSummary(err));
      }
    }
    const list = [...BUILTIN_SERVERS, ...own];
    if (opts.toolsRev !== undefined) {
      servers.set(userId, { rev: opts.toolsRev, list });
    }
    return list;
  }

  return {
    host: {
      gateway: hostGateway,
      serversFor,
      grants: opts.grants ?? storedGrants(db),
      sessions: sessionEnding({ db, connect: connectDeps, serversOf: (userId) => serversFor(userId) }),
    },
    remote,
    builtinListing,
    listAll: async (server, caller) => (server.builtin ? builtinListing(server) : remote.listTools(server, caller)),
    connectDeps,
    oauthStore,
  };
}

/**
 * The tools the person approved as they are now; the rest wait for them to look again. An
 * approval stored before titles counted is pinned to the tool as listed now, title included.
 */
async function onlyReviewed(db: Db, listed: ListedCatalog, server: McpServerConfig): Promise<ListedCatalog> {
  const reviewed = server.reviewedTools;
  if (!reviewed) return listed;
  const pins: Record<string, string> = {};
  const tools = listed.tools.filter((t) => {
    const state = reviewState(reviewed, t);
    if (state === 'before_titles') pins[t.name] = t.fingerprint;
    return state !== 'no';
  });
  if (Object.keys(pins).length > 0) {
    await pinReviewedTitles(db, server.id, pins).catch((err: unknown) => {
      console.error(`[tools] approvals of server ${server.id} not pinned:`, errorSummary(err));
    });
  }
  return { ...listed, tools };
}

/** The tool host the engine uses (see `createAppTools`); the stored grants unless others are given. */
export function createAppToolHost(db: Db, grants?: GrantSource): ToolHost {
  return createAppTools(db, { grants }).host;
}
