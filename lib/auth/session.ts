import { decode } from '@auth/core/jwt';

import type { Db } from '@/db/connection';
import { findLiveAuthSession } from '@/db/queries/auth-sessions';
import { findUserById, type UserRow } from '@/db/queries/users';

export interface Session {
  sessionId: string;
  user: Pick<UserRow, 'id' | 'email' | 'name' | 'plan'>;
}

const COOKIE_NAMES = ['__Secure-authjs.session-token', 'authjs.session-token'];

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
 * signed-out session is worthless.
 */
export async function getSessionFromCookies(db: Db, secret: string, cookieHeader: string | null): Promise<Session | null> {
  const cookies = parseCookies(cookieHeader);
  for (const name of COOKIE_NAMES) {
    const raw = readChunked(cookies, name);
    if (!raw) continue;
    const token = await decode({ token: raw, secret, salt: name }).catch(() => null);
    const sid = typeof token?.sid === 'string' ? token.sid : null;
    if (!sid) continue;
    const session = await findLiveAuthSession(db, sid);
    if (!session) return null;
    const user = await findUserById(db, session.userId);
    if (!user) return null;
    return { sessionId: sid, user: { id: user.id, email: user.email, name: user.name, plan: user.plan } };
  }
  return null;
}

// Auth.js splits large cookies into name.0, name.1, …
function readChunked(cookies: Map<string, string>, name: string): string | undefined {
  const whole = cookies.get(name);
  if (whole) return whole;
  const parts: string[] = [];
  for (let i = 0; cookies.has(`${name}.${i}`); i++) parts.push(cookies.get(`${name}.${i}`)!);
  return parts.length ? parts.join('') : undefined;
}
