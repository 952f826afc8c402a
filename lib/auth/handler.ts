import { Auth } from '@auth/core';

import type { Db } from '@/db/connection';
import { clientKey } from '@/lib/http/origin';

import { buildAuthConfig, type AuthRequestContext } from './config';
import { knownDeviceSetCookie, readKnownDevices } from './known-device';
import { usesSecureCookies } from './secure-cookies';

// Enough to tell browsers apart on the account page; a longer header is cut.
const MAX_USER_AGENT = 512;

/**
 * One request to /api/auth/*: Auth.js, plus what it has no hooks for — the client address and
 * the known-device cookie going in, and that cookie renewed after a password sign-in.
 */
export async function handleAuthRequest(req: Request, db: Db, secret: string): Promise<Response> {
  const secure = usesSecureCookies(req);
  const knownDevices = readKnownDevices(req.headers.get('cookie'), secret, { secure });
  const ctx: AuthRequestContext = {
    signIn: { client: clientKey(req), knownDevices },
    userAgent: req.headers.get('user-agent')?.slice(0, MAX_USER_AGENT) || null,
    secure,
  };
  const res = await Auth(req, buildAuthConfig(db, secret, ctx));
  if (!ctx.signedInWithPassword) return res;
  const out = new Response(res.body, res);
  out.headers.append('Set-Cookie', knownDeviceSetCookie(knownDevices, ctx.signedInWithPassword, secret, { secure }));
  return out;
}
