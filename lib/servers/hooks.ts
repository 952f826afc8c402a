import type { Db } from '@/db/connection';
import { listServers } from '@/db/queries/servers';
import { errorSummary } from '@/lib/log-safe';
import type { FetchLike } from '@/lib/mcp/connection';
import { forgetServerSessions } from '@/lib/mcp/legacy-sessions';
import { forgetServerOAuth } from '@/lib/mcp/oauth/flows';
import { processSingleton } from '@/lib/process-singleton';
import type { SecretBox } from '@/lib/secrets/secret-box';

/**
 * What else belongs to a server's URL. When a person changes a server's URL (or removes the
 * server), the server's own secrets and cached catalogs are dropped by lib/servers; anything
 * other modules keep for that server — OAuth credentials, above all — registers here to be
 * dropped too.
 */
export interface ServerUrlChange {
  userId: string;
  serverId: string;
  oldUrl: string;
  /** null when the server was removed. */
  newUrl: string | null;
}

/** What a hook may use: the database, and for OAuth revocation the secret box and the guarded fetch. */
export interface UrlChangeDeps {
  db: Db;
  box?: SecretBox;
  /** The fetch for OAuth requests (revoking what is forgotten); without it nothing is revoked. */
  oauthFetch?: FetchLike;
}

export type UrlChangeHook = (deps: UrlChangeDeps, change: ServerUrlChange) => Promise<void>;

const hooks = processSingleton('serverUrlChangeHooks', () => new Map<string, UrlChangeHook>());

/** Registers (or replaces, by name) a callback run after a server's URL changes or it is removed. */
export function onServerUrlChange(name: string, hook: UrlChangeHook): void {
  hooks.set(name, hook);
}

/**
 * Runs every registered hook. A failing hook is logged and the others still run, but the
 * failure is rethrown at the end: a credential that could not be dropped must not pass silently.
 */
export async function runUrlChangeHooks(deps: UrlChangeDeps, change: ServerUrlChange): Promise<void> {
  const failures: unknown[] = [];
  for (const [name, hook] of hooks) {
    try {
      await hook(deps, change);
    } catch (err) {
      console.error(`[servers] the "${name}" hook failed after a URL change:`, errorSummary(err));
      failures.push(err);
    }
  }
  if (failures.length) throw new Error(`Could not drop everything kept for the old URL (${failures.length} hook(s) failed).`);
}

/**
 * Drops the sign-ins in progress for this server and the OAuth credentials only it used (its URL
 * changed, or it was removed), revoking them at the provider where it can; a credential another
 * of the person's servers finds stays theirs. Registered as a hook so lib/servers needs no OAuth
 * import elsewhere.
 */
export async function dropOAuthCredentialsForServer(deps: UrlChangeDeps, change: ServerUrlChange): Promise<void> {
  const others = (await listServers(deps.db, change.userId)).filter((s) => s.id !== change.serverId);
  await forgetServerOAuth({ db: deps.db }, change.userId, change.serverId, change.oldUrl, {
    otherServerUrls: others.map((s) => s.url),
    box: deps.box,
    fetch: deps.oauthFetch,
  });
}

/**
 * Forgets the MCP sessions kept with the server for the person's conversations. They are not
 * ended at the old URL: Switchboard does not reach a server the person turned away from, and
 * the server ends them itself when they go unused.
 */
export async function dropKeptSessionsForServer(deps: UrlChangeDeps, change: ServerUrlChange): Promise<void> {
  await forgetServerSessions(deps.db, change.userId, change.serverId);
}

onServerUrlChange('oauth', dropOAuthCredentialsForServer);
onServerUrlChange('mcp-sessions', dropKeptSessionsForServer);
