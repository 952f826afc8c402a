import { markServerSignedIn } from '@/db/queries/oauth';
import { getServer, type ServerRow } from '@/db/queries/servers';
import { AppError } from '@/lib/http/errors';
import { errorSummary } from '@/lib/log-safe';
import type { FetchLike } from '@/lib/mcp/connection';
import { forgetServerSessions } from '@/lib/mcp/legacy-sessions';
import {
  completeSignIn,
  disconnect,
  OAuthFlowError,
  startSignIn,
  type OAuthDeps,
  type OAuthServerRef,
  type SignInFailure,
} from '@/lib/mcp/oauth';

import { openClientSecret } from './config';
import { testServer, type ServersContext } from './service';
import { CREDENTIALS_UNREADABLE } from './view';

/**
 * The servers page's OAuth use-cases: Connect (start a sign-in and hand back the provider's
 * URL), the callback (finish it, mark the server connected, let waiting calls run), Disconnect.
 */

export interface ServersOAuthContext extends ServersContext {
  /** The guarded, bounded fetch every OAuth request goes through. */
  oauthFetch: FetchLike;
  /** The app's origin: the redirect URI and the client ID metadata document hang off it. */
  appOrigin: string;
}

const DEFAULT_RETURN_TO = '/servers';
const MAX_RETURN_TO = 2_000;

function depsOf(ctx: ServersOAuthContext): OAuthDeps {
  return { db: ctx.db, box: ctx.box, fetch: ctx.oauthFetch, appOrigin: ctx.appOrigin };
}

/**
 * The server as the OAuth code sees it, its pre-registered client opened. A client secret that
 * does not open here (the key changed, or it was not stored for this server) refuses a sign-in
 * with words the person can act on; a disconnect goes on without it (`omit`), since forgetting
 * the credential must not depend on it.
 */
function oauthRef(ctx: ServersContext, row: ServerRow, unreadableSecret: 'refuse' | 'omit' = 'refuse'): OAuthServerRef {
  let clientSecret: string | undefined;
  try {
    clientSecret = openClientSecret(row, ctx.box);
  } catch (err) {
    console.error(`[oauth] the client secret of server ${row.id} cannot be opened:`, errorSummary(err));
    if (unreadableSecret === 'refuse') throw new AppError('conflict', 'server', CREDENTIALS_UNREADABLE, 'oauthClient');
  }
  return {
    id: row.id,
    displayName: row.name,
    url: row.url,
    ...(row.oauthClientId && { oauthClient: { clientId: row.oauthClientId, ...(clientSecret && { clientSecret }) } }),
  };
}

async function own(ctx: ServersContext, userId: string, id: string): Promise<ServerRow> {
  const row = await getServer(ctx.db, userId, id);
  if (!row) throw new AppError('not_found', 'server', `No server with id "${id}".`);
  return row;
}

/** A path on this app to come back to; anything else (another origin, `//host`, a scheme) is refused. */
export function checkReturnTo(raw: unknown): string {
  if (raw === undefined || raw === null) return DEFAULT_RETURN_TO;
  const bad = (why: string) => new AppError('bad_request', 'oauth', `returnTo ${why}.`, 'returnTo');
  if (typeof raw !== 'string') throw bad('must be a path on this site, such as "/c/…"');
  if (raw.length > MAX_RETURN_TO) throw bad(`must be at most ${MAX_RETURN_TO} characters`);
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\') || /[\u0000-\u001f]/.test(raw)) {
    throw bad('must be a path on this site (starting with a single "/")');
  }
  const base = 'http://switchboard.invalid';
  const url = new URL(raw, base);
  if (url.origin !== base) throw bad('must stay on this site');
  return `${url.pathname}${url.search}${url.hash}`;
}

export async function startServerSignIn(
  ctx: ServersOAuthContext,
  session: { userId: string; sessionId: string },
  serverId: string,
  returnTo: unknown,
): Promise<{ authorizationUrl: string }> {
  const target = checkReturnTo(returnTo);
  const row = await own(ctx, session.userId, serverId);
  if (row.org?.auth === 'shared')
    throw new AppError(
      'forbidden',
      'org_server',
      `"${row.name}" is reached with a credential your organization "${row.org.orgName}" keeps: there is no sign-in of yours ` +
        'to connect. If it refuses, ask its owners or admins.',
    );
  try {
    return await startSignIn(depsOf(ctx), { ...session, server: oauthRef(ctx, row), returnTo: target });
  } catch (err) {
    if (err instanceof OAuthFlowError) throw new AppError('bad_request', 'oauth', err.message);
    throw err;
  }
}

/** Where the callback sends the browser: back to `returnTo` with `oauth=connected`, or with the failure and its reason. */
export interface CallbackResult {
  location: string;
  ok: boolean;
}

export async function finishServerSignIn(
  ctx: ServersOAuthContext,
  session: { userId: string; sessionId: string },
  params: URLSearchParams,
  onSignedIn: (s: { userId: string; serverId: string }) => Promise<unknown>,
): Promise<CallbackResult> {
  try {
    const done = await completeSignIn(depsOf(ctx), {
      ...session,
      params,
      loadServer: async (id) => {
        const row = await getServer(ctx.db, session.userId, id);
        return row ? oauthRef(ctx, row) : null;
      },
    });
    await markServerSignedIn(ctx.db, session.userId, done.serverId);
    // List its tools now, with the new token: the page shows them for review at once, and calls
    // that resume below see the catalog as it is. A failure is recorded on the server, not fatal.
    await testServer(ctx, session.userId, done.serverId).catch((err) =>
      console.error('[oauth] listing the tools after sign-in failed:', errorSummary(err)),
    );
    // Calls that waited for this sign-in run now; a failure there must not undo the sign-in.
    await onSignedIn({ userId: session.userId, serverId: done.serverId }).catch((err) =>
      console.error('[oauth] resuming after sign-in failed:', errorSummary(err)),
    );
    return { ok: true, location: withFlag(done.returnTo, { oauth: 'connected', server: done.serverId }) };
  } catch (err) {
    // The page says the reason in fixed words (a link's query is anyone's to write); the detail is logged.
    const failure: SignInFailure = err instanceof OAuthFlowError ? err.code : 'failed';
    if (err instanceof OAuthFlowError) console.warn(`[oauth] the sign-in callback was refused (${failure}):`, err.message);
    else console.error('[oauth] the sign-in callback failed:', errorSummary(err));
    return { ok: false, location: withFlag(DEFAULT_RETURN_TO, { oauth: 'failed', reason: failure }) };
  }
}

function withFlag(path: string, flags: Record<string, string>): string {
  const url = new URL(path, 'http://switchboard.invalid');
  for (const [k, v] of Object.entries(flags)) url.searchParams.set(k, v);
  return `${url.pathname}${url.search}${url.hash}`;
}

export async function disconnectServer(
  ctx: ServersOAuthContext,
  userId: string,
  serverId: string,
): Promise<{ revoked: boolean; hadCredential: boolean }> {
  const row = await own(ctx, userId, serverId);
  // Sessions opened under this sign-in are not resumed under the next one (maybe another account).
  await forgetServerSessions(ctx.db, userId, row.id);
  return disconnect(depsOf(ctx), userId, oauthRef(ctx, row, 'omit'));
}
