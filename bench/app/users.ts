import { randomBytes } from 'node:crypto';
import { encode } from '@auth/core/jwt';

import type { Db } from '@/db/connection';
import { createAuthSession } from '@/db/queries/auth-sessions';
import { createUser } from '@/db/queries/users';
import { SESSION_COOKIE } from '@/lib/auth/session';

export interface BenchUser {
  id: string;
  /** The `Cookie` header value of a live signed-in session. */
  cookie: string;
}

/**
 * Users and signed-in sessions written straight into the database, as test/route-session.ts
 * does for route tests: a `users` row (no password: nobody signs in as them), an `auth_sessions`
 * row, and the Auth.js session cookie naming it, sealed with the `AUTH_SECRET` the app is started
 * with. The sign-up route is rate limited per client and hashes a password; the load needs
 * hundreds of users in seconds, and what it measures is the turn, not the sign-up.
 */
export async function createBenchUsers(db: Db, secret: string, count: number, tag: string): Promise<BenchUser[]> {
  const out: BenchUser[] = [];
  for (let i = 0; i < count; i++) {
    const user = await createUser(db, { email: `bench-${tag}-${i}-${randomBytes(3).toString('hex')}@example.test`, name: `Bench ${i}` });
    if (!user) throw new Error(`could not create bench user ${i}`);
    const sid = `bench-${randomBytes(8).toString('hex')}`;
    // A day to live: long enough for a 30-minute soak.
    await createAuthSession(db, { id: sid, userId: user.id, expiresAt: new Date(Date.now() + 86_400_000) });
    const token = await encode({ token: { sid, uid: user.id, sub: user.id }, secret, salt: SESSION_COOKIE });
    out.push({ id: user.id, cookie: `${SESSION_COOKIE}=${token}` });
  }
  return out;
}
