import { headers } from 'next/headers';
import { redirect } from 'next/navigation';

import { getSessionFromCookies, type Session } from '@/lib/auth/session';

import { getRuntime } from './runtime';

/** The session of the page being rendered, or null. */
export async function getPageSession(): Promise<Session | null> {
  const rt = await getRuntime();
  return getSessionFromCookies(rt.handle.db, rt.secret, (await headers()).get('cookie'));
}

/** For protected pages: the session, or a redirect to sign-in. */
export async function requirePageSession(): Promise<Session> {
  const session = await getPageSession();
  if (!session) redirect('/sign-in');
  return session;
}
