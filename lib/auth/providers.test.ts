import { customFetch } from '@auth/core';
import { describe, expect, it } from 'vitest';

import { ConfigError, readConfig } from '@/lib/config';

import { authJsSsoProviders } from './authjs-providers';
import { ISSUER_MAX_BYTES, issuerFetch } from './issuer-fetch';
import { passwordSignInEnabled, ssoProviders } from './providers';

const OIDC = { AUTH_OIDC_ISSUER: 'https://login.example.com/realms/acme', AUTH_OIDC_ID: 'switchboard', AUTH_OIDC_SECRET: 'oidc-secret' };
const GITHUB = { AUTH_GITHUB_ID: 'gh-client', AUTH_GITHUB_SECRET: 'gh-secret' };

describe('sign-in providers from the configuration', () => {
  it('offers none by default, and email + password', () => {
    expect(ssoProviders({})).toEqual([]);
    expect(authJsSsoProviders({})).toEqual([]);
    expect(passwordSignInEnabled({})).toBe(true);
  });

  it('OIDC: the issuer, client and checks Auth.js needs; the button name defaults to SSO', () => {
    expect(ssoProviders(OIDC)).toEqual([{ id: 'oidc', name: 'SSO' }]);
    expect(ssoProviders({ ...OIDC, AUTH_OIDC_NAME: ' Acme ID ' })).toEqual([{ id: 'oidc', name: 'Acme ID' }]);
    const [oidc] = authJsSsoProviders(OIDC) as unknown as Record<string | symbol, unknown>[];
    expect(oidc).toMatchObject({
      id: 'oidc',
      type: 'oidc',
      issuer: OIDC.AUTH_OIDC_ISSUER,
      clientId: 'switchboard',
      clientSecret: 'oidc-secret',
      checks: ['pkce', 'state', 'nonce'],
    });
    expect(typeof oidc![customFetch]).toBe('function');
  });

  it('GitHub: configured the same way, with its client id and secret (no end-to-end test offline)', () => {
    expect(ssoProviders(GITHUB)).toEqual([{ id: 'github', name: 'GitHub' }]);
    type Configured = { id: string; type: string; options: { clientId: string; clientSecret: string } };
    const [github] = authJsSsoProviders(GITHUB) as unknown as Configured[];
    expect(github).toMatchObject({ id: 'github', type: 'oauth', options: { clientId: 'gh-client', clientSecret: 'gh-secret' } });
    expect(ssoProviders({ ...OIDC, ...GITHUB }).map((p) => p.id)).toEqual(['oidc', 'github']);
  });

  it('refuses an issuer over plain http to another machine, a half-set OIDC provider, and passwords off with no way in', () => {
    const problems = (env: Record<string, string>) => {
      try {
        readConfig(env);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ ...OIDC, AUTH_OIDC_ISSUER: 'http://login.example.com' })).toEqual([
      'AUTH_OIDC_ISSUER must be an https URL; plain http only to this machine (got "http://login.example.com").',
    ]);
    expect(problems({ ...OIDC, AUTH_OIDC_ISSUER: 'http://127.0.0.1:3124' })).toEqual([]);
    expect(problems({ ...OIDC, AUTH_OIDC_ORG: 'acme' })).toEqual([
      'AUTH_OIDC_ORG must be an organization\'s id (a UUID, as GET /api/orgs lists it), got "acme".',
    ]);
    expect(problems({ ...OIDC, AUTH_OIDC_ISSUER: 'login.example.com' })).toEqual([
      'AUTH_OIDC_ISSUER must be a full URL such as https://login.example.com/realms/acme (got "login.example.com").',
    ]);
    expect(problems({ AUTH_OIDC_ISSUER: OIDC.AUTH_OIDC_ISSUER })).toEqual([
      'AUTH_OIDC_ID must be set too: AUTH_OIDC_ISSUER is set.',
      'AUTH_OIDC_SECRET must be set too: AUTH_OIDC_ISSUER is set.',
    ]);
    expect(problems({ AUTH_PASSWORD: 'off' })[0]).toMatch(/^AUTH_PASSWORD is off, but no single sign-on provider is set, so nobody/);
    expect(problems({ AUTH_PASSWORD: 'no' })).toEqual(['AUTH_PASSWORD must be "on" or "off" (got "no").']);
    expect(passwordSignInEnabled({ ...OIDC, AUTH_PASSWORD: 'off' })).toBe(false);
    expect(passwordSignInEnabled({ ...GITHUB, AUTH_PASSWORD: 'off' })).toBe(false);
  });
});

describe('issuerFetch', () => {
  it('passes small answers through, and refuses an oversized one, declared or streamed', async () => {
    const ok = issuerFetch({ base: async () => Response.json({ issuer: 'x' }) });
    expect(await (await ok('https://idp.test/.well-known/openid-configuration')).json()).toEqual({ issuer: 'x' });
    const big = 'x'.repeat(ISSUER_MAX_BYTES + 1);
    const declared = issuerFetch({ base: async () => new Response(big, { headers: { 'content-length': String(big.length) } }) });
    await expect(declared('https://idp.test/jwks')).rejects.toThrow('larger than');
    const streamed = issuerFetch({
      base: async () =>
        new Response(
          new ReadableStream({
            pull(c) {
              c.enqueue(new TextEncoder().encode('y'.repeat(64 * 1024)));
            },
          }),
        ),
    });
    await expect(streamed('https://idp.test/jwks')).rejects.toThrow('larger than');
  });

  it('gives up on a provider that does not answer in time, and follows no redirect', async () => {
    let seen: RequestInit | undefined;
    const hang = issuerFetch({
      timeoutMs: 50,
      base: (_url, init) => {
        seen = init;
        return new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
      },
    });
    await expect(hang('https://idp.test/token')).rejects.toThrow(/timed out|timeout/i);
    expect(seen?.redirect).toBe('manual');
  });
});
