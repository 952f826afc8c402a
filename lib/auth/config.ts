import { randomBytes } from 'node:crypto';
import type { AuthConfig } from '@auth/core';
import { CredentialsSignin } from '@auth/core/errors';
import Credentials from '@auth/core/providers/credentials';
import GitHub from '@auth/core/providers/github';
import Google from '@auth/core/providers/google';

import type { Db } from '@/db/connection';
import { createAuthSession, endAuthSession } from '@/db/queries/auth-sessions';
import { upsertOAuthUser } from '@/db/queries/users';
import { getAuditKeyring } from '@/lib/audit/key';
import { readConfig, type Env } from '@/lib/config';
import { logGrantsEndedAtSignOut } from '@/lib/consent/grant-audit';

import { verifyCredentials, type SignInContext } from './credentials';

export const SESSION_MAX_AGE_S = 7 * 24 * 60 * 60;

class RateLimitedSignIn extends CredentialsSignin {
  code = 'rate_limited';
}

/** Which optional sign-in providers are configured (their env vars are set). */
export function oauthProviders(env?: Env): ('github' | 'google')[] {
  const config = readConfig(env);
  const out: ('github' | 'google')[] = [];
  if (config.AUTH_GITHUB_ID && config.AUTH_GITHUB_SECRET) out.push('github');
  if (config.AUTH_GOOGLE_ID && config.AUTH_GOOGLE_SECRET) out.push('google');
  return out;
}

/** What one request to /api/auth brings (read by handler.ts) and what it leaves behind. */
export interface AuthRequestContext {
  signIn: SignInContext;
  userAgent: string | null;
  /** On https: Auth.js must set the `__Secure-` cookie, the only one read there (secure-cookies.ts). */
  secure: boolean;
  /** Set when a password sign-in created a session: the handler then remembers this browser. */
  signedInWithPassword?: string;
}

/**
 * Auth.js configuration for one request: email + password always, GitHub / Google when
 * configured. Sessions are JWTs that carry only a session id (`sid`) and the user id (`uid`);
 * the session row in Postgres is what makes a session live, so signing out ends it everywhere.
 */
export function buildAuthConfig(db: Db, secret: string, ctx: AuthRequestContext, env?: Env): AuthConfig {
  const config = readConfig(env);
  const providers: AuthConfig['providers'] = [
    Credentials({
      credentials: { email: { type: 'email' }, password: { type: 'password' } },
      async authorize(credentials) {
        const result = await verifyCredentials(db, credentials, ctx.signIn);
        if (result.ok) return { id: result.user.id, email: result.user.email, name: result.user.name };
        if (result.reason === 'rate_limited') throw new RateLimitedSignIn();
        return null;
      },
    }),
  ];
  const oauth = oauthProviders(env);
  if (oauth.includes('github')) providers.push(GitHub({ clientId: config.AUTH_GITHUB_ID, clientSecret: config.AUTH_GITHUB_SECRET }));
  if (oauth.includes('google')) providers.push(Google({ clientId: config.AUTH_GOOGLE_ID, clientSecret: config.AUTH_GOOGLE_SECRET }));

  return {
    secret,
    basePath: '/api/auth',
    // The URL Auth.js builds on is Host, checked by proxy.ts, or behind TRUSTED_PROXIES what the
    // proxy forwards (`authRequest`, handler.ts): never a header a client alone could set.
    trustHost: true,
    useSecureCookies: ctx.secure,
    providers,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: '/sign-in', error: '/sign-in' },
    logger: { error: (e) => console.error('[auth]', e.name, e.message), warn: () => {}, debug: () => {} },
    callbacks: {
      async jwt({ token, user, account, profile, trigger }) {
        if (trigger !== 'signIn' || !user) return token;
        let userId = user.id!;
        if (account && account.type !== 'credentials') {
          const email = (profile?.email ?? user.email)?.toString();
          if (!email) throw new Error('This account has no email address to sign in with.');
          userId = (
            await upsertOAuthUser(db, {
              provider: account.provider,
              providerAccountId: account.providerAccountId,
              email,
              name: user.name,
            })
          ).id;
        }
        const sid = randomBytes(24).toString('base64url');
        const expiresAt = new Date(Date.now() + SESSION_MAX_AGE_S * 1000);
        await createAuthSession(db, { id: sid, userId, expiresAt, userAgent: ctx.userAgent });
        if (account?.type === 'credentials') ctx.signedInWithPassword = userId;
        return { sub: userId, uid: userId, sid };
      },
      redirect({ url, baseUrl }) {
        // Only ever back into this app.
        if (url.startsWith('/')) return `${baseUrl}${url}`;
        return new URL(url).origin === baseUrl ? url : baseUrl;
      },
    },
    events: {
      async signOut(message) {
        const sid = 'token' in message ? (message.token?.sid as string | undefined) : undefined;
        if (sid) await endAuthSession(db, sid, new Date(), logGrantsEndedAtSignOut(await getAuditKeyring()));
      },
    },
  };
}
