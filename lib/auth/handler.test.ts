import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listLiveAuthSessions } from '@/db/queries/auth-sessions';
import { openTestDb, TEST_DATABASES } from '@/test/db';

import { verifyCredentials } from './credentials';
import { handleAuthRequest } from './handler';
import { readKnownDevices } from './known-device';
import { PASSWORD_CHECK_THROTTLE } from './limits';
import { signUp } from './signup';

const SECRET = 'h'.repeat(40);
const PASSWORD = 'right password';

/** name=value pairs of a response's Set-Cookie headers. */
function setCookies(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    const i = pair.indexOf('=');
    out.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return out;
}

const cookieHeader = (cookies: Map<string, string>) => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`/api/auth through Auth.js on ${kind}`, () => {
    let h: DbHandle;
    beforeAll(async () => {
      h = await openTestDb(kind);
    });
    afterAll(async () => h?.close());

    /** The sign-in form's two requests: a CSRF token, then the credentials. */
    async function signIn(origin: string, email: string, password: string, jar = new Map<string, string>()) {
      const csrf = await handleAuthRequest(
        new Request(`${origin}/api/auth/csrf`, { headers: { cookie: cookieHeader(jar) } }),
        h.db,
        SECRET,
      );
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      for (const [k, v] of setCookies(csrf)) jar.set(k, v);
      const res = await handleAuthRequest(
        new Request(`${origin}/api/auth/callback/credentials`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar), 'user-agent': 'TestBrowser/1.0' },
          body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/' }),
        }),
        h.db,
        SECRET,
      );
      for (const [k, v] of setCookies(res)) jar.set(k, v);
      return { res, jar };
    }

    it('builds its URLs from what a proxy forwards behind TRUSTED_PROXIES, else from Host alone', async () => {
      const providers = async () => {
        const res = await handleAuthRequest(
          new Request('http://localhost:3000/api/auth/providers', {
            headers: { host: 'localhost:3000', 'x-forwarded-host': 'switchboard.example.com', 'x-forwarded-proto': 'https' },
          }),
          h.db,
          SECRET,
        );
        return ((await res.json()) as { credentials: { callbackUrl: string } }).credentials.callbackUrl;
      };
      vi.stubEnv('AUTH_URL', '');
      vi.stubEnv('APP_URL', '');
      try {
        // No proxy: the forwarded headers are the client's words.
        vi.stubEnv('TRUSTED_PROXIES', '');
        expect(await providers()).toBe('http://localhost:3000/api/auth/callback/credentials');
        // Next reports the URL as localhost whatever the browser asked for: Host says where it was.
        const at127 = await handleAuthRequest(
          new Request('http://localhost:3000/api/auth/providers', { headers: { host: '127.0.0.1:3000' } }),
          h.db,
          SECRET,
        );
        expect(((await at127.json()) as { credentials: { callbackUrl: string } }).credentials.callbackUrl).toBe(
          'http://127.0.0.1:3000/api/auth/callback/credentials',
        );
        // One proxy of ours in front: what it forwards is its word.
        vi.stubEnv('TRUSTED_PROXIES', '1');
        expect(await providers()).toBe('https://switchboard.example.com/api/auth/callback/credentials');
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('a password sign-in records the user agent and remembers the browser as a known device', async () => {
      const user = await signUp(h.db, { email: 'browser@example.test', password: PASSWORD }, { client: null });
      const { res, jar } = await signIn('http://localhost:3000', 'browser@example.test', PASSWORD);
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get('location')!).pathname).toBe('/');
      expect(jar.get('authjs.session-token')).toBeTruthy();
      const devices = readKnownDevices(cookieHeader(jar), SECRET, { secure: false });
      expect(devices.map((d) => d.userId)).toEqual([user.id]);
      expect((await listLiveAuthSessions(h.db, user.id)).map((s) => s.userAgent)).toEqual(['TestBrowser/1.0']);

      const failed = await signIn('http://localhost:3000', 'browser@example.test', 'wrong password');
      expect(failed.res.headers.get('location')).toContain('error=CredentialsSignin');
      expect(readKnownDevices(cookieHeader(failed.jar), SECRET, { secure: false })).toEqual([]);
    });

    it('rate limits: the browser that signed in before gets past a flooded email; a fresh one is held back', async () => {
      await signUp(h.db, { email: 'flood@example.test', password: PASSWORD }, { client: null });
      const { jar } = await signIn('http://localhost:3000', 'flood@example.test', PASSWORD);
      // Twelve counted failures, spaced so each is checked: the email's next check is hours away.
      const start = Date.now();
      for (let i = 0; i < 12; i++) {
        const now = new Date(start + i * (PASSWORD_CHECK_THROTTLE.maxDelayMs + 1_000));
        const r = await verifyCredentials(
          h.db,
          { email: 'flood@example.test', password: `guess ${i}` },
          { client: null, knownDevices: [], now },
        );
        expect(r).toEqual({ ok: false, reason: 'invalid' });
      }
      jar.delete('authjs.session-token');
      const known = await signIn('http://localhost:3000', 'flood@example.test', PASSWORD, jar);
      expect(new URL(known.res.headers.get('location')!).pathname).toBe('/');
      const fresh = await signIn('http://localhost:3000', 'flood@example.test', PASSWORD);
      expect(fresh.res.headers.get('location')).toContain('code=rate_limited');
    });

    it('cookies: on https Auth.js sets the __Secure- session cookie and a __Host- known-device cookie', async () => {
      await signUp(h.db, { email: 'https@example.test', password: PASSWORD }, { client: null });
      const { jar } = await signIn('https://chat.example.test', 'https@example.test', PASSWORD);
      expect(jar.get('__Secure-authjs.session-token')).toBeTruthy();
      expect(jar.has('authjs.session-token')).toBe(false);
      expect(readKnownDevices(cookieHeader(jar), SECRET, { secure: true })).toHaveLength(1);
    });
  });
}
