import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { insertAccessTokenUnderCap } from '@/db/queries/access-tokens';
import { listLiveAuthSessions } from '@/db/queries/auth-sessions';
import { insertOrg, roleIn } from '@/db/queries/orgs';
import { findUserByEmail, findUserByIdentity } from '@/db/queries/users';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { startTestIdp, TEST_IDP_CLIENT, TEST_IDP_PASSWORD_EMAIL, type TestIdp } from '@/test/fixtures/oidc-idp';

import { handleAuthRequest } from './handler';
import { getSessionFromCookies } from './session';
import { signUp } from './signup';
import { resolveSsoUser, type SsoIdentity } from './sso-link';

/**
 * Single sign-on through the real Auth.js handler against a real OpenID Connect provider on
 * loopback (oidc-provider, test/fixtures/oidc-idp.ts): the whole authorization-code + PKCE flow,
 * its redirects followed by hand with two cookie jars — the browser's for the app, and for the IdP.
 */

const SECRET = 's'.repeat(40);
const APP = 'http://localhost:3000';
const PASSWORD = 'a password of pat';

type Jar = Map<string, string>;
const header = (jar: Jar) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
function keep(jar: Jar, res: Response) {
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    const i = pair.indexOf('=');
    const value = pair.slice(i + 1);
    if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') jar.delete(pair.slice(0, i));
    else jar.set(pair.slice(0, i), value);
  }
}

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`single sign-on (OIDC, authorization code + PKCE) on ${kind}`, () => {
    let h: DbHandle;
    let idp: TestIdp;

    beforeAll(async () => {
      h = await openTestDb(kind);
      idp = await startTestIdp({ redirectUris: [`${APP}/api/auth/callback/oidc`] });
    });
    afterAll(async () => {
      await idp?.close();
      await h?.close();
    });
    afterEach(() => vi.unstubAllEnvs());

    function configureOidc(extra: Record<string, string> = {}) {
      vi.stubEnv('AUTH_URL', '');
      vi.stubEnv('APP_URL', '');
      vi.stubEnv('AUTH_OIDC_ISSUER', idp.issuer);
      vi.stubEnv('AUTH_OIDC_ID', TEST_IDP_CLIENT.clientId);
      vi.stubEnv('AUTH_OIDC_SECRET', TEST_IDP_CLIENT.clientSecret);
      vi.stubEnv('AUTH_OIDC_NAME', 'Acme ID');
      for (const [k, v] of Object.entries(extra)) vi.stubEnv(k, v);
    }

    const app = (path: string, jar: Jar, init: RequestInit = {}) =>
      handleAuthRequest(
        new Request(new URL(path, APP), { ...init, headers: { ...init.headers, cookie: header(jar), 'user-agent': 'SsoTest/1.0' } }),
        h.db,
        SECRET,
      );

    /** "Continue with Acme ID" as the button asks (sso-buttons.tsx): a CSRF token, then the redirect as JSON. */
    async function startSignOn(jar: Jar): Promise<Response> {
      const csrf = await app('/api/auth/csrf', jar);
      keep(jar, csrf);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      return app('/api/auth/signin/oidc', jar, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' },
        body: new URLSearchParams({ csrfToken, callbackUrl: '/' }),
      });
    }

    /**
     * "Continue with Acme ID", the IdP's login page as `account`, and back: where the app sends
     * the browser at the end, and its cookies.
     */
    async function signInWithIdp(account: string): Promise<{ location: URL; jar: Jar }> {
      const jar: Jar = new Map();
      const idpJar: Jar = new Map();
      const start = await startSignOn(jar);
      keep(jar, start);
      let url = new URL(((await start.json()) as { url: string }).url);
      expect(url.origin).toBe(idp.issuer);
      // The authorization request is the code flow with PKCE (S256), state and nonce.
      expect(url.searchParams.get('response_type')).toBe('code');
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('state')).toBeTruthy();
      expect(url.searchParams.get('nonce')).toBeTruthy();

      // At the IdP: authorize → its login page → resume → back to the app with a code.
      for (let hop = 0; url.origin === idp.issuer; hop++) {
        if (hop > 8) throw new Error('too many hops at the IdP');
        const login = /^\/interaction\/[^/]+$/.test(url.pathname);
        const res = await fetch(url, {
          method: login ? 'POST' : 'GET',
          redirect: 'manual',
          headers: { cookie: header(idpJar), ...(login && { 'content-type': 'application/x-www-form-urlencoded' }) },
          body: login ? new URLSearchParams({ prompt: 'login', login: account, password: 'anything' }) : undefined,
        });
        keep(idpJar, res);
        const next = res.headers.get('location');
        if (!next) throw new Error(`the IdP answered ${res.status} at ${url.pathname}: ${(await res.text()).slice(0, 300)}`);
        url = new URL(next, url);
      }
      expect(url.pathname).toBe('/api/auth/callback/oidc');
      const callback = await app(`${url.pathname}${url.search}`, jar);
      keep(jar, callback);
      return { location: new URL(callback.headers.get('location')!, APP), jar };
    }

    const sessionOf = (jar: Jar) => getSessionFromCookies(h.db, SECRET, header(jar));

    it("lists the OIDC provider (type oidc, the operator's name) only when it is configured", async () => {
      type Listed = Record<string, { type: string; name: string }>;
      const providers = async () => (await (await app('/api/auth/providers', new Map())).json()) as Listed;
      expect(Object.keys(await providers())).toEqual(['credentials']);
      configureOidc();
      const listed = await providers();
      expect(listed.oidc).toMatchObject({ id: 'oidc', type: 'oidc', name: 'Acme ID', callbackUrl: `${APP}/api/auth/callback/oidc` });
      expect(JSON.stringify(listed)).not.toContain(TEST_IDP_CLIENT.clientSecret);
    });

    it('a new verified email: the account is created just in time, without a password, and signed in like a password sign-in', async () => {
      configureOidc();
      const { location, jar } = await signInWithIdp('sub-verified');
      expect(location.pathname).toBe('/');
      const user = await findUserByEmail(h.db, 'vera@idp.test');
      expect(user).toMatchObject({ name: 'Vera Verified', passwordHash: null, plan: 'pro' });
      const session = await sessionOf(jar);
      expect(session?.user.id).toBe(user!.id);
      // The same live session row as a password sign-in makes: listed on the account page, ended by sign-out.
      expect((await listLiveAuthSessions(h.db, user!.id)).map((s) => s.userAgent)).toEqual(['SsoTest/1.0']);
    });

    it('an existing account is linked when the IdP vouches for the email, and found by subject after the email changes', async () => {
      configureOidc();
      const owner = await signUp(h.db, { email: TEST_IDP_PASSWORD_EMAIL, password: PASSWORD }, { client: null });
      const first = await signInWithIdp('sub-existing');
      expect(first.location.pathname).toBe('/');
      expect((await sessionOf(first.jar))?.user.id).toBe(owner.id);

      // The IdP now says another address: the subject is what the link is made of.
      idp.accounts['sub-existing']!.email = 'pat.renamed@idp.test';
      try {
        const again = await signInWithIdp('sub-existing');
        expect((await sessionOf(again.jar))?.user.id).toBe(owner.id);
        expect(await findUserByEmail(h.db, 'pat.renamed@idp.test')).toBeNull();
      } finally {
        idp.accounts['sub-existing']!.email = TEST_IDP_PASSWORD_EMAIL;
      }
    });

    it('an existing email the IdP has not verified is refused with the reason, and no second account is made', async () => {
      configureOidc();
      const owner = await signUp(h.db, { email: 'ursula@idp.test', password: PASSWORD }, { client: null });
      const { location, jar } = await signInWithIdp('sub-unverified');
      expect(location.pathname).toBe('/sign-in');
      expect(location.searchParams.get('code')).toBe('sso_email_unverified');
      expect(await sessionOf(jar)).toBeNull();
      expect(await listLiveAuthSessions(h.db, owner.id)).toEqual([]);
      // Still unlinked: a second try is refused the same way, not let in by a link made the first time.
      const retry = await signInWithIdp('sub-unverified');
      expect(retry.location.searchParams.get('code')).toBe('sso_email_unverified');
    });

    async function passwordSignIn(email: string, password: string): Promise<Jar> {
      const jar: Jar = new Map();
      const csrf = await app('/api/auth/csrf', jar);
      keep(jar, csrf);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const res = await app('/api/auth/callback/credentials', jar, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/' }),
      });
      keep(jar, res);
      return jar;
    }

    it("a squatter's password account: the owner's verified sign-on takes it over, the password and its sessions end", async () => {
      configureOidc();
      const squat = await signUp(h.db, { email: 'olivia@idp.test', password: PASSWORD }, { client: null });
      expect(squat.emailVerifiedAt).toBeNull();
      const squatter = await passwordSignIn('olivia@idp.test', PASSWORD);
      expect((await sessionOf(squatter))?.user.id).toBe(squat.id);

      const owner = await signInWithIdp('sub-owner');
      expect((await sessionOf(owner.jar))?.user.id).toBe(squat.id);
      // The squatter is out: their session has ended and their password no longer signs in.
      expect(await sessionOf(squatter)).toBeNull();
      expect(await sessionOf(await passwordSignIn('olivia@idp.test', PASSWORD))).toBeNull();
      const after = await findUserByEmail(h.db, 'olivia@idp.test');
      expect(after).toMatchObject({ passwordHash: null, passwordRemovedBy: 'Acme ID' });
      expect(after!.emailVerifiedAt).toBeInstanceOf(Date);
      // Only the owner's session is live.
      expect(await listLiveAuthSessions(h.db, squat.id)).toHaveLength(1);
    });

    it('a first sign-on joins the organization that takes its domain, only with a verified email (the onCreated seam)', async () => {
      configureOidc();
      const org = await insertOrg(h.db, { name: 'Join Inc', joinDomain: 'join.test' });
      const dana = await signInWithIdp('sub-domain');
      expect(await roleIn(h.db, org.id, (await sessionOf(dana.jar))!.user.id)).toBe('member');
      const nora = await signInWithIdp('sub-domain-unverified');
      expect(await roleIn(h.db, org.id, (await sessionOf(nora.jar))!.user.id)).toBeNull();
    });

    it('AUTH_OIDC_ORG: an account the OIDC provider creates lands in the mapped organization', async () => {
      const mapped = await insertOrg(h.db, { name: 'Mapped Co' });
      configureOidc({ AUTH_OIDC_ORG: mapped.id });
      const { jar } = await signInWithIdp('sub-mapped');
      expect(await roleIn(h.db, mapped.id, (await sessionOf(jar))!.user.id)).toBe('member');
    });

    it('the rules on their own: no email, GitHub (no verified claim), and two first sign-ins at once', async () => {
      const base: SsoIdentity = { provider: 'oidc', subject: 'rules-1', email: null, emailVerified: true, name: null };
      expect(await resolveSsoUser(h.db, base)).toEqual({ ok: false, reason: 'sso_no_email' });
      await signUp(h.db, { email: 'gh-taken@example.test', password: PASSWORD }, { client: null });
      const github = { ...base, provider: 'github', subject: '4242', email: 'GH-Taken@example.test', emailVerified: false };
      expect(await resolveSsoUser(h.db, github)).toEqual({ ok: false, reason: 'sso_email_unverified' });
      expect(await findUserByIdentity(h.db, github)).toBeNull();
      // The same person's first sign-in twice at once (two tabs): one account, one link, both in it.
      const twice = { ...base, subject: 'rules-2', email: 'twice@example.test', emailVerified: false };
      const [a, b] = await Promise.all([resolveSsoUser(h.db, twice), resolveSsoUser(h.db, twice)]);
      expect(a.ok && b.ok && a.user.id === b.user.id).toBe(true);
      expect((await findUserByIdentity(h.db, twice))?.email).toBe('twice@example.test');
    });

    it("a squatter's unverified sign-on: after the owner's verified one, the squatter's identity no longer opens the account", async () => {
      const squatter: SsoIdentity = {
        provider: 'oidc',
        subject: 'squatter',
        email: 'squatted@example.test',
        emailVerified: false,
        name: '',
      };
      const created = await resolveSsoUser(h.db, squatter);
      expect(created).toMatchObject({ ok: true, how: 'created' });
      if (!created.ok) throw new Error('not created');
      const profile = { v: 1 as const, tools: [] };
      const token = (await insertAccessTokenUnderCap(
        h.db,
        { userId: created.user.id, name: 'squatter', tokenHash: randomUUID(), prefix: 'sbp_test', expiresAt: null, profile },
        10,
      ))!;
      const owner = { ...squatter, subject: 'vera-owner', emailVerified: true };
      // The squatter's token is revoked, and /mcp told so: its open listen streams close at once.
      const onRevoked = vi.fn();
      expect(await resolveSsoUser(h.db, owner, { onRevoked })).toMatchObject({ ok: true, how: 'linked' });
      expect(onRevoked.mock.calls).toEqual([[token.id]]);
      // Back through the identity the squatter linked: not the account any more, and refused (its email is unproven).
      expect(await findUserByIdentity(h.db, squatter)).toBeNull();
      expect(await resolveSsoUser(h.db, squatter)).toEqual({ ok: false, reason: 'sso_email_unverified' });
      expect((await findUserByIdentity(h.db, owner))?.id).toBe(created.ok ? created.user.id : null);
    });

    it('an IdP that cannot be reached: the page is told so (as JSON for the button), nothing is signed in', async () => {
      configureOidc({ AUTH_OIDC_ISSUER: 'http://127.0.0.1:9' });
      const res = await startSignOn(new Map());
      const { url } = (await res.json()) as { url: string };
      expect(new URL(url).pathname).toBe('/sign-in');
      expect(new URL(url).searchParams.get('error')).toBe('Configuration');
    });

    it('AUTH_PASSWORD=off: the credentials endpoints refuse with the reason; single sign-on still works', async () => {
      configureOidc();
      await signUp(h.db, { email: 'before-off@example.test', password: PASSWORD }, { client: null });
      vi.stubEnv('AUTH_PASSWORD', 'off');
      const jar: Jar = new Map();
      const csrf = await app('/api/auth/csrf', jar);
      keep(jar, csrf);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const res = await app('/api/auth/callback/credentials', jar, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrfToken, email: 'before-off@example.test', password: PASSWORD, callbackUrl: '/' }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: {
          code: 'forbidden:password_off',
          message: 'Signing in with an email and password is turned off on this server: sign in with single sign-on instead.',
        },
      });
      expect(res.headers.getSetCookie().some((c) => c.startsWith('authjs.session-token='))).toBe(false);
      const providers = (await (await app('/api/auth/providers', new Map())).json()) as Record<string, unknown>;
      expect(Object.keys(providers)).toEqual(['oidc']);
      await expect(signUp(h.db, { email: 'new-off@example.test', password: PASSWORD }, { client: null })).rejects.toThrow(
        'Creating an account with a password is turned off on this server',
      );
      const sso = await signInWithIdp('sub-verified');
      expect(sso.location.pathname).toBe('/');
      expect(await sessionOf(sso.jar)).not.toBeNull();
    });
  });
}
