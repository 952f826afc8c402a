import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { fromWebHandler, listenOnLoopback, type LoopbackListener } from '@/test/fixtures/node-web-adapter';

import { authJsSsoProviders } from './authjs-providers';
import { githubUserinfo } from './github-profile';
import { identityFromProfile } from './sso-link';

/** A GitHub API on loopback: `/user` and `/user/emails` per access token, as GitHub answers them. */
const ACCOUNTS: Record<string, { user: Record<string, unknown>; emails: unknown; emailsStatus?: number }> = {
  'verified-primary': {
    // The public email is whatever the person typed; the verified primary is another.
    user: { id: 1, login: 'ada', name: 'Ada', email: 'typed-anything@example.test' },
    emails: [
      { email: 'ada-old@example.test', primary: false, verified: true, visibility: null },
      { email: 'ada@example.test', primary: true, verified: true, visibility: 'private' },
    ],
  },
  'unverified-primary': {
    user: { id: 2, login: 'bob', name: null, email: null },
    emails: [{ email: 'bob@example.test', primary: true, verified: false, visibility: null }],
  },
  'no-email-scope': {
    user: { id: 3, login: 'cy', name: 'Cy', email: 'cy@example.test' },
    emails: { message: 'Resource not accessible by integration' },
    emailsStatus: 403,
  },
};

describe('GitHub sign-in: the profile says whether the address is verified', () => {
  let api: LoopbackListener;
  beforeAll(async () => {
    api = await listenOnLoopback(
      fromWebHandler((req) => {
        const token = req.headers.get('authorization')?.replace('Bearer ', '') ?? '';
        const account = ACCOUNTS[token];
        if (!account) return Response.json({ message: 'Bad credentials' }, { status: 401 });
        const path = new URL(req.url).pathname;
        if (path === '/user') return Response.json(account.user);
        if (path === '/user/emails') return Response.json(account.emails, { status: account.emailsStatus ?? 200 });
        return new Response('not found', { status: 404 });
      }),
    );
  });
  afterAll(() => api.close());

  const profileOf = (token: string) => githubUserinfo(api.origin, fetch)({ tokens: { access_token: token } });

  it('takes the primary address GitHub verified, never the public email the person typed', async () => {
    const profile = await profileOf('verified-primary');
    expect(profile).toMatchObject({ id: 1, login: 'ada', email: 'ada@example.test', email_verified: true });
    expect(identityFromProfile('github', '1', profile, {})).toMatchObject({ email: 'ada@example.test', emailVerified: true });
  });

  it('says an unverified primary address is unverified (it creates an account, never links one)', async () => {
    const profile = await profileOf('unverified-primary');
    expect(profile).toMatchObject({ email: 'bob@example.test', email_verified: false });
    expect(identityFromProfile('github', '2', profile, {}).emailVerified).toBe(false);
  });

  it('without the address list, keeps the public email as unverified', async () => {
    expect(await profileOf('no-email-scope')).toMatchObject({ email: 'cy@example.test', email_verified: false });
  });

  it('refuses a profile it cannot read', async () => {
    await expect(profileOf('nobody')).rejects.toThrow(/401/);
    await expect(githubUserinfo(api.origin, fetch)({ tokens: {} })).rejects.toThrow(/no access token/);
  });

  it('is the userinfo request of the configured GitHub provider', () => {
    vi.stubEnv('AUTH_GITHUB_ID', 'gh-client');
    vi.stubEnv('AUTH_GITHUB_SECRET', 'gh-secret');
    try {
      const github = authJsSsoProviders().find((p) => typeof p !== 'function' && p.id === 'github');
      const options = (github as { options?: { userinfo?: { url?: string; request?: unknown } } }).options;
      expect(options?.userinfo?.url).toBe('https://api.github.com/user');
      expect(typeof options?.userinfo?.request).toBe('function');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
