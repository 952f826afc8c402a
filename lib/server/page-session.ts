import { headers } from 'next/headers';
import { redirect } from 'next/navigation';

import { usesSecureCookies } from '@/lib/auth/secure-cookies';
import { getSessionFromCookies, type Session } from '@/lib/auth/session';
import { appOrigin } from '@/lib/http/origin';

import { getRuntime } from './runtime';

/** The session of the page being rendered, or null. */
export async function getPageSession(): Promise<Session | null> {
  const rt = await getRuntime();
  const requestHeaders = await headers();
  return getSessionFromCookies(rt.handle.db, rt.secret, requestHeaders.get('cookie'), {
    secure: usesSecureCookies({ headers: requestHeaders }),
  });
}

/** For protected pages: the session, or a redirect to sign-in. */
export async function requirePageSession(): Promise<Session> {
  const session = await getPageSession();
  if (!session) redirect('/sign-in');
  return session;
}

/** The app's origin for the page being rendered (lib/http/origin.ts `appOrigin`, from the request's headers). */
export async function getPageOrigin(): Promise<string> {
  const requestHeaders = await headers();
  const scheme = usesSecureCookies({ headers: requestHeaders }) ? 'https' : 'http';
  return appOrigin(new Request(`${scheme}://${requestHeaders.get('host') ?? 'localhost'}/`, { headers: requestHeaders }));
}
