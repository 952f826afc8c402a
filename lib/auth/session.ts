import { decode } from '@auth/core/jwt';

import type { Db } from '@/db/connection';
import { findLiveAuthSession, touchAuthSession } from '@/db/queries/auth-sessions';
import { findUserById, type UserRow } from '@/db/queries/users';

export interface Session {
  sessionId: string;
  user: Pick<UserRow, 'id' | 'email' | 'name' | 'plan'>;
}

export const SESSION_COOKIE = 'authjs.session-token';
export const SECURE_SESSION_COOKIE = `__Secure-${SESSION_COOKIE}`;

export function parseCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const raw = part.slice(i + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // A malformed cookie (another app on localhost) is kept as is rather than failing the request.
    }
    out.set(part.slice(0, i).trim(), value);
  }
  return out;
}

/**
 * The signed-in session behind a request's cookie, or null. A valid JWT is not enough: its
 * session row must still be live (not signed out, not expired), so a copied cookie of a
 * signed-out session is worthless. With `secure` (the app is on https, see secure-cookies.ts)
 * only the `__Secure-` cookie is read.
 */
export async function getSessionFromCookies(
  db: Db,
  secret: string,
  cookieHeader: string | null,
  opts: { secure?: boolean; now?: Date } = {},
): Promise<Session | null> {
  const cookies = parseCookies(cookieHeader);
  for (const name of opts.secure ? [SECURE_SESSION_COOKIE] : [SECURE_SESSION_COOKIE, SESSION_COOKIE]) {
    const raw = readChunked(cookies, name);
    if (!raw) continue;
    const token = await decode({ token: raw, secret, salt: name }).catch(() => null);
    const sid = typeof token?.sid === 'string' ? token.sid : null;
    if (!sid) continue;
    const session = await findLiveAuthSession(db, sid, opts.now);
    if (!session) return null;
    if (isStale(session.lastSeenAt, opts.now)) await touchAuthSession(db, sid, opts.now);
    const user = await findUserById(db, session.userId);
    if (!user) return null;
    return { sessionId: sid, user: { id: user.id, email: user.email, name: user.name, plan: user.plan } };
  }
  return null;
}

// "Last seen" is for the account page's session list: minutes are precise enough, and most
// requests then cost no write.
const LAST_SEEN_PRECISION_MS = 5 * 60_000;
function isStale(lastSeenAt: Date | null, now = new Date()): boolean {
  return !lastSeenAt || now.getTime() - lastSeenAt.getTime() > LAST_SEEN_PRECISION_MS;
}

// Auth.js splits large cookies into name.0, name.1, …
function readChunked(cookies: Map<string, string>, name: string): string | undefined {
  const whole = cookies.get(name);
  if (whole) return whole;
  const parts: string[] = [];
  for (let i = 0; cookies.has(`${name}.${i}`); i++) parts.push(cookies.get(`${name}.${i}`)!);
  return parts.length ? parts.join('') : undefined;
}

/** Set-Cookie values that drop the session cookie (after the account is deleted, its session row is gone anyway). */
export function clearedSessionCookies(secure: boolean): string[] {
  const name = secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  return [`${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`];
}
