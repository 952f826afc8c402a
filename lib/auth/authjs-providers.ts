import { customFetch, type AuthConfig } from '@auth/core';
import GitHub from '@auth/core/providers/github';
import Google from '@auth/core/providers/google';

import { readConfig, type Env } from '@/lib/config';

import { GITHUB_API, githubUserinfo } from './github-profile';
import { issuerFetch } from './issuer-fetch';
import { ssoProviders } from './providers';

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
        return GitHub({
          clientId: c.AUTH_GITHUB_ID,
          clientSecret: c.AUTH_GITHUB_SECRET,
          // The primary address with whether GitHub verified it (./github-profile.ts).
          userinfo: { url: `${GITHUB_API}/user`, request: githubUserinfo() },
          [customFetch]: issuerFetch(),
        });
      case 'google':
        return Google({ clientId: c.AUTH_GOOGLE_ID, clientSecret: c.AUTH_GOOGLE_SECRET, [customFetch]: issuerFetch() });
    }
  });
}
