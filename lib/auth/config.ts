import { randomBytes } from 'node:crypto';
import type { AuthConfig } from '@auth/core';
import { CredentialsSignin } from '@auth/core/errors';
import Credentials from '@auth/core/providers/credentials';

import type { Db } from '@/db/connection';
import { createAuthSession, endAuthSession } from '@/db/queries/auth-sessions';
import { getAuditKeyring } from '@/lib/audit/key';
import { readConfig, type Env } from '@/lib/config';
import { logGrantsEndedAtSignOut } from '@/lib/consent/grant-audit';
import { ensureDefaultOrganization } from '@/lib/orgs/default-org';
import { joinByEmailDomain, joinIssuerOrg } from '@/lib/orgs/join';

import { authJsSsoProviders } from './authjs-providers';
import { verifyCredentials, type SignInContext } from './credentials';
import { passwordSignInEnabled } from './providers';
import { identityFromProfile, resolveSsoUser } from './sso-link';

export const SESSION_MAX_AGE_S = 7 * 24 * 60 * 60;

class RateLimitedSignIn extends CredentialsSignin {
  code = 'rate_limited';
}

/** What one request to /api/auth brings (read by handler.ts) and what it leaves behind. */
export interface AuthRequestContext {
  signIn: SignInContext;
  userAgent: string | null;
  /** On https: Auth.js must set the `__Secure-` cookie, the only one read there (secure-cookies.ts). */
  secure: boolean;
  /** Set when a password sign-in created a session: the handler then remembers this browser. */
  signedInWithPassword?: string;
  /** The account a single sign-on resolved to (the `signIn` callback), for the `jwt` callback. */
  ssoUserId?: string;
  /** A token or connected client revoked by an account takeover (sso-link.ts): /mcp closes its open streams. */
  onRevoked?: (clientId: string) => void;
}

/**
 * Auth.js configuration for one request: email + password unless AUTH_PASSWORD=off, and the
 * single sign-on providers configured (providers.ts). Sessions are JWTs that carry only a session
 * id (`sid`) and the user id (`uid`); the session row in Postgres is what makes a session live,
 * so signing out ends it everywhere — the same for every provider.
 */
export function buildAuthConfig(db: Db, secret: string, ctx: AuthRequestContext, env?: Env): AuthConfig {
  const providers: AuthConfig['providers'] = [];
  if (passwordSignInEnabled(env)) {
    providers.push(
      Credentials({
        credentials: { email: { type: 'email' }, password: { type: 'password' } },
        async authorize(credentials) {
          const result = await verifyCredentials(db, credentials, ctx.signIn);
          if (result.ok) return { id: result.user.id, email: result.user.email, name: result.user.name };
          if (result.reason === 'rate_limited') throw new RateLimitedSignIn();
          return null;
        },
      }),
    );
  }
  providers.push(...authJsSsoProviders(env));

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
      // Which account a single sign-on lands in (sso-link.ts), or the sign-in page with the reason.
      async signIn({ user, account, profile }) {
        if (!account || account.type === 'credentials') return true;
        const identity = identityFromProfile(account.provider, account.providerAccountId, profile, user);
        const outcome = await resolveSsoUser(db, identity, {
          onRevoked: ctx.onRevoked,
          // A new account: the operator's first owns the default organization; anyone else joins the
          // organization that takes their verified email's domain, if one does, and the one the
          // operator maps the OIDC issuer to (AUTH_OIDC_ORG).
          onCreated: async (user, id) => {
            await ensureDefaultOrganization(db);
            await joinByEmailDomain(db, user, id);
            if (id.provider === 'oidc') await joinIssuerOrg(db, user, readConfig(env).AUTH_OIDC_ORG);
          },
        });
        if (!outcome.ok) return `/sign-in?error=AccessDenied&code=${outcome.reason}`;
        ctx.ssoUserId = outcome.user.id;
        return true;
      },
      async jwt({ token, user, account, trigger }) {
        if (trigger !== 'signIn' || !user) return token;
        const userId = account?.type === 'credentials' ? user.id : ctx.ssoUserId;
        if (!userId) throw new Error('sign-in: no account was resolved for this sign-in');
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
