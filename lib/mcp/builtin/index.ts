import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';

import type { Db } from '@/db/connection';
import { getUserPlan } from '@/db/queries/users';
import { limitsFor } from '@/lib/limits';
import { errorSummary } from '@/lib/log-safe';
import { processSingleton } from '@/lib/process-singleton';

import type { FetchLike } from '../connection';
import type { McpServerConfig } from '../types';
import { createNotesServerHandler } from './notes';
import { createSandboxServerHandler } from './sandbox';

export { builtinAuthInfo, callerFromAuthInfo } from './auth';
export { createNotesServerHandler } from './notes';
export { createSandboxServerHandler, type SandboxOptions, type SandboxServerOptions } from './sandbox';

/**
 * First-party servers. They run in-process but are reached through the same MCP client path as
 * remote ones (the transport's `fetch` calls the handler directly), so consent, timeouts and
 * catalogs treat them alike.
 */
export const BUILTIN_SERVERS: readonly McpServerConfig[] = Object.freeze([
  {
    id: 'builtin-notes',
    namespace: 'notes',
    displayName: 'Notes',
    url: 'builtin://notes',
    trust: 'trusted',
    trustContent: true,
    privateData: true,
    timeoutMs: 60_000,
    builtin: true,
  },
  {
    id: 'builtin-sandbox',
    namespace: 'sandbox',
    displayName: 'Sandbox (JavaScript)',
    url: 'builtin://sandbox',
    trust: 'trusted',
    trustContent: true,
    timeoutMs: 60_000,
    builtin: true,
  },
]);

/** Whether a server holds the person's own data (its reads ask in a tainted conversation, lib/consent/policy.ts). */
export function holdsPrivateData(serverId: string | null | undefined): boolean {
  return BUILTIN_SERVERS.some((s) => s.id === serverId && s.privateData === true);
}

export type BuiltinNamespace = 'notes' | 'sandbox';

export function isBuiltinNamespace(namespace: string): namespace is BuiltinNamespace {
  return namespace === 'notes' || namespace === 'sandbox';
}

// One handler per namespace for the process (not per route bundle): the sandbox keeps its warm
// workers and its per-user queues in it.
const handlers = processSingleton('builtinHandlers', () => new Map<BuiltinNamespace, McpHttpHandler>());

/** The cached handler of a first-party server; `getDb` is only used the first time. */
export function builtinHandler(namespace: BuiltinNamespace, getDb: () => Promise<Db>): McpHttpHandler {
  let handler = handlers.get(namespace);
  if (!handler) {
    handler = namespace === 'notes' ? createNotesServerHandler(getDb) : createSandboxServerHandler({ userLimits: planLimits(getDb) });
    handlers.set(namespace, handler);
  }
  return handler;
}

/** Each person's sandbox share comes from their plan; if the plan cannot be read, the defaults apply. */
function planLimits(getDb: () => Promise<Db>) {
  return async (userId: string | null) => {
    if (!userId) return limitsFor(undefined);
    try {
      return limitsFor(await getUserPlan(await getDb(), userId));
    } catch (err) {
      console.error('[sandbox] could not read the plan:', errorSummary(err));
      return limitsFor(undefined);
    }
  };
}

/** Closes and forgets the cached handlers (process shutdown, tests); the next call builds anew. */
export async function closeBuiltinHandlers(): Promise<void> {
  const all = [...handlers.values()];
  handlers.clear();
  await Promise.all(all.map((h) => h.close()));
}

/**
 * A `fetch` for `StreamableHTTPClientTransport` that serves each request from `handler` with no
 * network: the trusted `authInfo` (see `builtinAuthInfo`) rides alongside the request, so
 * nothing a client sends (headers, arguments) can change the user.
 */
export function inProcessFetch(handler: McpHttpHandler, authInfo: AuthInfo | undefined): FetchLike {
  return (url, init) => handler.fetch(new Request(url, init), authInfo ? { authInfo } : {});
}
