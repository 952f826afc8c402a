import { expect, test, type APIResponse } from '@playwright/test';

import {
  appOrigin,
  jsonWrite,
  newUser,
  postAccount,
  signedInUser,
  signInViaApi,
  signOutViaUi,
  signUpViaApi,
  submitSignIn,
  waitForIdle,
  words,
} from './helpers';

const MAX_MESSAGE_CHARS = 32_000;

async function errorOf(res: APIResponse): Promise<{ code: string; message: string; field?: string }> {
  const body = (await res.json()) as { error: { code: string; message: string; field?: string } };
  expect(body.error, `error body of ${res.status()}`).toBeTruthy();
  return body.error;
}

test.describe('sign-in failures', () => {
  test('wrong password and unknown email get the same redirect and the same message', async ({ page, playwright, baseURL }) => {
    const origin = appOrigin(baseURL);
    const user = newUser('signin');
    await signUpViaApi(page.request, origin, user);

    // Over HTTP, each with its own cookie jar (a fresh CSRF token).
    const failures: string[] = [];
    for (const [email, password] of [
      [user.email, 'not the right password'],
      [`nobody-${Date.now()}@example.test`, user.password],
    ] as const) {
      const ctx = await playwright.request.newContext({ baseURL });
      try {
        failures.push(await signInViaApi(ctx, email, password));
        expect((await ctx.get('/api/conversations')).status()).toBe(401);
      } finally {
        await ctx.dispose();
      }
    }
    const expected = `${origin}/sign-in?error=CredentialsSignin&code=credentials`;
    expect(failures).toEqual([expected, expected]);

    // In the browser: the same page and the same words for both.
    const shown: string[] = [];
    for (const [email, password] of [
      [user.email, 'not the right password'],
      [`nobody-else-${Date.now()}@example.test`, user.password],
    ] as const) {
      await submitSignIn(page, email, password);
      await expect(page).toHaveURL(expected);
      const alert = page.getByRole('main').getByRole('alert');
      await expect(alert).toHaveText('That email and password do not match an account.');
      shown.push((await alert.textContent()) ?? '');
    }
    expect(shown[0]).toBe(shown[1]);

    // The right password still works afterwards.
    const ok = await playwright.request.newContext({ baseURL });
    try {
      expect(new URL(await signInViaApi(ok, user.email, user.password)).pathname).toBe('/');
      expect((await ok.get('/api/conversations')).status()).toBe(200);
    } finally {
      await ok.dispose();
    }
  });
});

test.describe('sign-up validation', () => {
  test('duplicates, bad JSON, bad email, short password, oversized body', async ({ request, baseURL }) => {
    const origin = appOrigin(baseURL);
    const user = newUser('dup');
    await signUpViaApi(request, origin, user);

    const again = await postAccount(request, origin, { email: user.email, password: user.password });
    expect(again.status()).toBe(409);
    expect(await errorOf(again)).toMatchObject({ code: 'conflict:account', field: 'email' });

    const shouting = await postAccount(request, origin, { email: user.email.toUpperCase(), password: user.password });
    expect(shouting.status(), 'an email differing only in case is the same account').toBe(409);
    expect(await errorOf(shouting)).toMatchObject({ code: 'conflict:account', field: 'email' });

    const malformed = await postAccount(request, origin, '{"email": "x@example.test", "password":');
    expect(malformed.status()).toBe(400);
    expect((await errorOf(malformed)).code).toBe('bad_request:json');

    const badEmail = await postAccount(request, origin, { email: 'not-an-email', password: user.password });
    expect(badEmail.status()).toBe(400);
    const badEmailError = await errorOf(badEmail);
    expect(badEmailError).toMatchObject({ code: 'bad_request:body', field: 'email' });
    expect(badEmailError.message).toMatch(/^email: /);

    const shortPassword = await postAccount(request, origin, { email: newUser('short').email, password: 'short' });
    expect(shortPassword.status()).toBe(400);
    const shortError = await errorOf(shortPassword);
    expect(shortError).toMatchObject({ code: 'bad_request:body', field: 'password' });
    expect(shortError.message).toContain('at least 8 characters');

    const huge = await postAccount(request, origin, { email: newUser('huge').email, password: user.password, name: 'n'.repeat(20_000) });
    expect(huge.status()).toBe(413);
    expect((await errorOf(huge)).code).toBe('payload_too_large:body');

    const notJson = await request.post('/api/account', {
      headers: { 'Content-Type': 'text/plain', Origin: origin },
      data: JSON.stringify({ email: newUser('plain').email, password: user.password }),
    });
    expect(notJson.status()).toBe(415);
  });

  test('the sign-up page shows a duplicate email as an error and stays put', async ({ page, baseURL }) => {
    const origin = appOrigin(baseURL);
    const user = newUser('dup-ui');
    await signUpViaApi(page.request, origin, user);
    await page.goto('/sign-up');
    await page.locator('#field-email').fill(user.email.toUpperCase());
    await page.locator('#field-password').fill(user.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('main').getByRole('alert')).toHaveText('An account with this email already exists. Sign in instead.');
    await expect(page).toHaveURL((url) => url.pathname === '/sign-up');
  });
});

test.describe('origin and session checks', () => {
  test('writes need our Origin; the API needs a session', async ({ request, playwright, baseURL }) => {
    const origin = appOrigin(baseURL);
    const user = newUser('origin');

    const noOrigin = await request.post('/api/account', {
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '10.99.0.1' },
      data: { email: user.email, password: user.password },
    });
    expect(noOrigin.status()).toBe(403);
    expect((await errorOf(noOrigin)).code).toBe('forbidden:origin');

    const foreign = await request.post('/api/account', {
      headers: jsonWrite('http://evil.example', { 'X-Forwarded-For': '10.99.0.2' }),
      data: { email: user.email, password: user.password },
    });
    expect(foreign.status()).toBe(403);
    expect((await errorOf(foreign)).code).toBe('forbidden:origin');
    // Neither attempt created the account: it can be made now.
    await signUpViaApi(request, origin, user);

    // Unauthenticated reads and writes.
    const anon = await playwright.request.newContext({ baseURL });
    try {
      const list = await anon.get('/api/conversations');
      expect(list.status()).toBe(401);
      expect((await errorOf(list)).code).toBe('unauthorized:session');
      expect((await anon.post('/api/conversations', { headers: jsonWrite(origin), data: {} })).status()).toBe(401);
      expect((await anon.get('/api/conversations/00000000-0000-4000-8000-000000000000/events')).status()).toBe(401);
      // A forged cookie is no session either.
      const forged = await anon.get('/api/conversations', { headers: { Cookie: 'authjs.session-token=not-a-real-token' } });
      expect(forged.status()).toBe(401);
    } finally {
      await anon.dispose();
    }

    // Signed in, writes still need the Origin.
    const authed = await playwright.request.newContext({ baseURL });
    try {
      await signInViaApi(authed, user.email, user.password);
      expect((await authed.get('/api/conversations')).status()).toBe(200);
      const bare = await authed.post('/api/conversations', { headers: { 'Content-Type': 'application/json' }, data: {} });
      expect(bare.status()).toBe(403);
      const cross = await authed.post('/api/conversations', { headers: jsonWrite('http://localhost:9999'), data: {} });
      expect(cross.status()).toBe(403);
      const list = (await (await authed.get('/api/conversations')).json()) as { conversations: unknown[] };
      expect(list.conversations, 'refused writes created nothing').toHaveLength(0);
      expect((await authed.post('/api/conversations', { headers: jsonWrite(origin), data: {} })).status()).toBe(201);
    } finally {
      await authed.dispose();
    }
  });

  test('after signing out, a copy of the old session cookie no longer works', async ({ page, playwright, baseURL }) => {
    const origin = appOrigin(baseURL);
    const user = await signedInUser(page.context(), origin, 'replay');
    await page.goto('/');
    await expect(page.getByRole('complementary', { name: 'Conversations' }).getByText(user.name)).toBeVisible();

    const cookies = await page.context().cookies();
    const session = cookies.filter((c) => c.name.startsWith('authjs.session-token'));
    expect(session.length).toBeGreaterThan(0);
    const cookieHeader = session.map((c) => `${c.name}=${c.value}`).join('; ');

    const replay = await playwright.request.newContext({ baseURL });
    try {
      // The copied cookie works while the session lives...
      expect((await replay.get('/api/conversations', { headers: { Cookie: cookieHeader } })).status()).toBe(200);
      await signOutViaUi(page);
      // ...and not after signing out, though the JWT itself has not expired.
      const after = await replay.get('/api/conversations', { headers: { Cookie: cookieHeader } });
      expect(after.status()).toBe(401);
      const write = await replay.post('/api/conversations', { headers: jsonWrite(origin, { Cookie: cookieHeader }), data: {} });
      expect(write.status()).toBe(401);
      // The page, too, sends the copy to sign in.
      const pageRes = await replay.get('/', { headers: { Cookie: cookieHeader }, maxRedirects: 0 });
      expect(pageRes.status()).toBeGreaterThanOrEqual(300);
      expect(pageRes.status()).toBeLessThan(400);
      expect(new URL(pageRes.headers()['location'] ?? '', origin).pathname).toBe('/sign-in');
    } finally {
      await replay.dispose();
    }
  });
});

test.describe('messages, runs and the event stream', () => {
  test('message size limits, one run at a time, SSE headers and 204', async ({ page, baseURL }) => {
    test.setTimeout(60_000);
    const origin = appOrigin(baseURL);
    await signedInUser(page.context(), origin, 'runs');
    const api = page.request;
    const created = await api.post('/api/conversations', { headers: jsonWrite(origin), data: {} });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const messages = `/api/conversations/${id}/messages`;

    await test.step('text over 32,000 characters is 413; a body over the byte cap is 413', async () => {
      const tooLong = await api.post(messages, { headers: jsonWrite(origin), data: { text: 'a'.repeat(MAX_MESSAGE_CHARS + 1) } });
      expect(tooLong.status()).toBe(413);
      expect(await errorOf(tooLong)).toMatchObject({ code: 'payload_too_large:message', field: 'text' });

      const tooBig = await api.post(messages, { headers: jsonWrite(origin), data: { text: 'b'.repeat(300_000) } });
      expect(tooBig.status()).toBe(413);
      expect((await errorOf(tooBig)).code).toBe('payload_too_large:body');

      const empty = await api.post(messages, { headers: jsonWrite(origin), data: { text: '   ' } });
      expect(empty.status()).toBe(400);

      // Nothing was stored, and nothing is running.
      const view = (await (await api.get(`/api/conversations/${id}`)).json()) as { messages: unknown[]; activeRun: unknown };
      expect(view.messages).toHaveLength(0);
      expect(view.activeRun).toBeNull();
    });

    await test.step('exactly 32,000 characters is accepted', async () => {
      const atLimit = await api.post(messages, { headers: jsonWrite(origin), data: { text: 'c'.repeat(MAX_MESSAGE_CHARS) } });
      expect(atLimit.status()).toBe(202);
      await waitForIdle(api, id);
    });

    await test.step('a second message while a run is active is 409; the SSE stream follows the run', async () => {
      const first = await api.post(messages, { headers: jsonWrite(origin), data: { text: words(40, 'busy') } });
      expect(first.status()).toBe(202);
      const started = (await first.json()) as { runId: string; status: string; afterSeq: number };
      expect(started.runId).toBeTruthy();
      expect(started.afterSeq).toBeGreaterThan(0);

      const second = await api.post(messages, { headers: jsonWrite(origin), data: { text: 'me too' } });
      expect(second.status()).toBe(409);
      expect((await errorOf(second)).code).toBe('conflict:run');

      // Live while the run is active; the body ends when the run does.
      const events = await api.get(`/api/conversations/${id}/events?after=${started.afterSeq}`);
      expect(events.status()).toBe(200);
      const headers = events.headers();
      expect(headers['content-type']).toMatch(/^text\/event-stream/);
      expect(headers['cache-control']).toBe('no-cache, no-transform');
      expect(headers['x-accel-buffering']).toBe('no');
      const body = await events.text();
      expect(body).toContain('event: run.started');
      expect(body).toContain('event: message.delta');
      expect(body).toContain('event: message.completed');
      expect(body).toContain('event: run.completed');
      expect(body).toContain(started.runId);

      // The run is over: now a message is accepted again.
      await waitForIdle(api, id);
      const third = await api.post(messages, { headers: jsonWrite(origin), data: { text: 'now it is my turn' } });
      expect(third.status()).toBe(202);
      await waitForIdle(api, id);
    });

    await test.step('nothing to replay and no active run: 204; a bad cursor: 400', async () => {
      const none = await api.get(`/api/conversations/${id}/events?after=999999999`);
      expect(none.status()).toBe(204);
      expect(await none.text()).toBe('');
      const bad = await api.get(`/api/conversations/${id}/events?after=abc`);
      expect(bad.status()).toBe(400);
      expect((await errorOf(bad)).field).toBe('after');
    });
  });
});

test.describe('security headers', () => {
  test("pages carry a CSP whose img-src is 'self' data: blob:", async ({ page, request, baseURL }) => {
    const imgSrcOf = (csp: string | undefined) =>
      (csp ?? '')
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('img-src '));

    const signIn = await request.get('/sign-in');
    expect(signIn.status()).toBe(200);
    expect(imgSrcOf(signIn.headers()['content-security-policy'])).toBe("img-src 'self' data: blob:");
    expect(signIn.headers()['x-frame-options']).toBe('DENY');
    expect(signIn.headers()['content-security-policy']).toContain("frame-ancestors 'none'");

    // A signed-in page, as the browser receives it.
    await signedInUser(page.context(), appOrigin(baseURL), 'csp');
    const home = await page.goto('/');
    expect(home?.status()).toBe(200);
    expect(imgSrcOf((await home?.headerValue('content-security-policy')) ?? undefined)).toBe("img-src 'self' data: blob:");
  });

  test("workers come from our own origin only: a blob: worker is refused (worker-src 'self')", async ({ page, baseURL }) => {
    await signedInUser(page.context(), appOrigin(baseURL), 'csp-worker');
    await page.goto('/');
    // 'strict-dynamic' in script-src alone would let a trusted script start a worker from anywhere.
    const outcome = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          try {
            const worker = new Worker(URL.createObjectURL(new Blob(['postMessage("ran")'], { type: 'text/javascript' })));
            worker.onmessage = () => resolve('ran');
            worker.onerror = () => resolve('refused');
            setTimeout(() => resolve('no answer'), 5_000);
          } catch {
            resolve('refused');
          }
        }),
    );
    expect(outcome).toBe('refused');
  });
});
