import { customFetch, type AuthConfig } from '@auth/core';
import GitHub from '@auth/core/providers/github';
import Google from '@auth/core/providers/google';

import { readConfig, type Env } from '@/lib/config';
import { AppError } from '@/lib/http/errors';

import { issuerFetch } from './issuer-fetch';

/**
 * The sign-in providers an operator configured besides email + password, in the order the
 * sign-in page offers them. What the browser gets is this list (ids and names): never a client
 * id or secret.
 */
export interface SsoProvider {
  /** Auth.js's provider id: `/api/auth/signin/<id>`, `/api/auth/callback/<id>`, auth_accounts.provider. */
  id: 'oidc' | 'github' | 'google';
  /** "Continue with <name>". */
  name: string;
}

export function ssoProviders(env?: Env): SsoProvider[] {
  const c = readConfig(env);
  const out: SsoProvider[] = [];
  if (c.AUTH_OIDC_ISSUER && c.AUTH_OIDC_ID && c.AUTH_OIDC_SECRET) out.push({ id: 'oidc', name: c.AUTH_OIDC_NAME });
  if (c.AUTH_GITHUB_ID && c.AUTH_GITHUB_SECRET) out.push({ id: 'github', name: 'GitHub' });
  if (c.AUTH_GOOGLE_ID && c.AUTH_GOOGLE_SECRET) out.push({ id: 'google', name: 'Google' });
  return out;
}

/** AUTH_PASSWORD: whether email + password sign-in (and sign-up, and password changes) are on. */
export function passwordSignInEnabled(env?: Env): boolean {
  return readConfig(env).AUTH_PASSWORD === 'on';
}

/** The refusal of anything password-based with AUTH_PASSWORD=off: `what` "is turned off on this server". */
export function passwordOff(what: string): AppError {
  return new AppError('forbidden', 'password_off', `${what} is turned off on this server: sign in with single sign-on instead.`);
}

/** The Auth.js provider configs of `ssoProviders`, with their secrets (server side only). */
export function authJsSsoProviders(env?: Env): AuthConfig['providers'] {
  const c = readConfig(env);
  return ssoProviders(env).map((p) => {
    switch (p.id) {
      case 'oidc':
        return {
          id: 'oidc',
          name: p.name,
          type: 'oidc',
          issuer: c.AUTH_OIDC_ISSUER,
          clientId: c.AUTH_OIDC_ID,
          clientSecret: c.AUTH_OIDC_SECRET,
          // The authorization-code flow with PKCE, bound to this browser by state and to this
          // sign-in by the ID token's nonce. The profile is the ID token's claims (Auth.js's
          // default for OIDC): `email_verified` is read from there.
          checks: ['pkce', 'state', 'nonce'],
          [customFetch]: issuerFetch(),
        };
      case 'github':
        return GitHub({ clientId: c.AUTH_GITHUB_ID, clientSecret: c.AUTH_GITHUB_SECRET, [customFetch]: issuerFetch() });
      case 'google':
        return Google({ clientId: c.AUTH_GOOGLE_ID, clientSecret: c.AUTH_GOOGLE_SECRET, [customFetch]: issuerFetch() });
    }
  });
}
