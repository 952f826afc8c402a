import { randomBytes } from 'node:crypto';
import { encode } from '@auth/core/jwt';

import type { Db } from '@/db/connection';
import { createAuthSession } from '@/db/queries/auth-sessions';
import { createUser } from '@/db/queries/users';
import { getAuthSecret } from '@/lib/auth/secret';
import { SESSION_COOKIE } from '@/lib/auth/session';

/**
 * A live signed-in session for a user, as route tests need it: the `auth_sessions` row (an hour
 * to live) and the session cookie that names it, sealed with the app's auth secret.
 */
export async function sessionCookie(db: Db, userId: string): Promise<{ cookie: string; sid: string }> {
  const sid = `sid-${randomBytes(6).toString('hex')}`;
  await createAuthSession(db, { id: sid, userId, expiresAt: new Date(Date.now() + 3_600_000) });
  const token = await encode({ token: { sid, uid: userId, sub: userId }, secret: await getAuthSecret(), salt: SESSION_COOKIE });
  return { cookie: `${SESSION_COOKIE}=${token}`, sid };
}

/** A new user (a random `p-…@example.test` address) signed in: their id and session cookie. */
export async function signedInPerson(db: Db): Promise<{ userId: string; cookie: string }> {
  const user = (await createUser(db, { email: `p-${randomBytes(4).toString('hex')}@example.test` }))!;
  return { userId: user.id, cookie: (await sessionCookie(db, user.id)).cookie };
}
