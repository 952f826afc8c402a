import { Auth } from '@auth/core';

import type { Db } from '@/db/connection';
import { requestedHost } from '@/lib/http/host';
import { clientKey, trustedProxyHops } from '@/lib/http/origin';

import { buildAuthConfig, type AuthRequestContext } from './config';
import { knownDeviceSetCookie, readKnownDevices } from './known-device';
import { passwordOff, passwordSignInEnabled } from './providers';
import { usesSecureCookies } from './secure-cookies';

// Enough to tell browsers apart on the account page; a longer header is cut.
const MAX_USER_AGENT = 512;

/**
 * One request to /api/auth/*: Auth.js, plus what it has no hooks for — the client address and
 * the known-device cookie going in, and that cookie renewed after a password sign-in.
 */
export async function handleAuthRequest(
  req: Request,
  db: Db,
  secret: string,
  onRevoked?: AuthRequestContext['onRevoked'],
): Promise<Response> {
  // Without the provider Auth.js would answer "Configuration"; a client gets the reason instead.
  if (!passwordSignInEnabled() && isCredentialsRequest(req)) {
    const error = passwordOff('Signing in with an email and password');
    return Response.json(error.toJSON(), { status: error.status });
  }
  const secure = usesSecureCookies(req);
  const knownDevices = readKnownDevices(req.headers.get('cookie'), secret, { secure });
  const ctx: AuthRequestContext = {
    signIn: { client: clientKey(req), knownDevices },
    userAgent: req.headers.get('user-agent')?.slice(0, MAX_USER_AGENT) || null,
    secure,
    onRevoked,
  };
  const res = await Auth(authRequest(req), buildAuthConfig(db, secret, ctx));
  if (!ctx.signedInWithPassword) return res;
  const out = new Response(res.body, res);
  out.headers.append('Set-Cookie', knownDeviceSetCookie(knownDevices, ctx.signedInWithPassword, secret, { secure }));
  return out;
}

function isCredentialsRequest(req: Request): boolean {
  return /\/api\/auth\/(callback|signin)\/credentials\/?$/.test(new URL(req.url).pathname);
}

/**
 * The request as Auth.js reads it. Auth.js builds every URL it answers with (redirects, the
 * providers' sign-in and callback URLs) from the request's URL. Next does not build that URL from
 * Host (`next start -H 127.0.0.1` reports `localhost` whatever the browser asked for, and a
 * sign-in at http://127.0.0.1:3000 was then sent to localhost, which the page's CSP `form-action`
 * refuses), so it is rebuilt here from Host (checked by proxy.ts, lib/http/host.ts) — and
 * `trustHost: true` trusts only what proxy.ts let through. Behind proxies of ours
 * (`TRUSTED_PROXIES`) Host is the proxy's own view of the app, and the public host and scheme are
 * what the proxy forwards (X-Forwarded-Host, which proxy.ts checks then, and X-Forwarded-Proto);
 * without them those headers are the client's words and are not read. With APP_URL / AUTH_URL
 * set, proxy.ts admits that host only.
 */
export function authRequest(req: Request, env?: Record<string, string | undefined>): Request {
  const host = requestedHost(req.headers, env);
  if (!host) return req;
  const current = new URL(req.url);
  const forwardedProto = trustedProxyHops(env) > 0 ? req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() : undefined;
  const protocol = forwardedProto === 'https' || forwardedProto === 'http' ? `${forwardedProto}:` : current.protocol;
  const url = new URL(`${protocol}//${host}${current.pathname}${current.search}`);
  return url.href === current.href ? req : new Request(url, req);
}
