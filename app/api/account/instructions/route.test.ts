import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser, getUserInstructions } from '@/db/queries/users';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/** PUT /api/account/instructions: the person's own instructions for every conversation. */
describe('/api/account/instructions', () => {
  let h: DbHandle;
  let route: typeof import('./route');
  beforeAll(async () => {
    h = await openRouteRuntime('instructions');
    route = await import('./route');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `i-${Math.random().toString(36).slice(2)}@example.test` }))!;
    return { userId: user.id, cookie: (await sessionCookie(h.db, user.id)).cookie };
  }
  const none = { params: Promise.resolve({}) };
  const req = (method: string, cookie: string, body?: unknown, origin = 'http://localhost') =>
    new Request('http://localhost/api/account/instructions', {
      method,
      headers: { cookie, origin, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('sets, reads back and clears them; another person’s stay their own', async () => {
    const ada = await signedIn();
    const bob = await signedIn();
    expect(await (await route.GET(req('GET', ada.cookie), none)).json()).toEqual({ text: '' });
    const put = await route.PUT(req('PUT', ada.cookie, { text: '\n I am Ada, a botanist.\nUse metric units. \n' }), none);
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ text: 'I am Ada, a botanist.\nUse metric units.' });
    expect(await (await route.GET(req('GET', ada.cookie), none)).json()).toEqual({ text: 'I am Ada, a botanist.\nUse metric units.' });
    expect(await (await route.GET(req('GET', bob.cookie), none)).json()).toEqual({ text: '' });
    expect(await getUserInstructions(h.db, bob.userId)).toBeNull();

    const cleared = await route.PUT(req('PUT', ada.cookie, { text: '   ' }), none);
    expect(await cleared.json()).toEqual({ text: '' });
    expect(await getUserInstructions(h.db, ada.userId)).toBeNull();
  });

  it('says which field is wrong and what is allowed; a refused write changes nothing', async () => {
    const { userId, cookie } = await signedIn();
    await route.PUT(req('PUT', cookie, { text: 'Keep me.' }), none);
    const long = await route.PUT(req('PUT', cookie, { text: 'é'.repeat(4001) }), none);
    expect(long.status).toBe(400);
    expect((await long.json()).error).toEqual({
      code: 'bad_request:body',
      field: 'text',
      message: 'text: must be at most 4,000 characters (this is 4,001)',
    });
    const missing = await route.PUT(req('PUT', cookie, {}), none);
    expect((await missing.json()).error).toMatchObject({
      field: 'text',
      message: 'text: must be text (send "" to clear your instructions)',
    });
    const extra = await route.PUT(req('PUT', cookie, { text: 'x', instructions: 'y' }), none);
    expect(extra.status).toBe(400);
    const nul = await route.PUT(req('PUT', cookie, { text: 'a\u0000b' }), none);
    expect((await nul.json()).error.message).toBe('text: must not contain NUL characters');
    // 4,000 characters is allowed, whatever their size in bytes.
    expect((await route.PUT(req('PUT', cookie, { text: '😀'.repeat(4000) }), none)).status).toBe(200);
    await route.PUT(req('PUT', cookie, { text: 'Keep me.' }), none);
    // A write from another origin is refused before anything is read.
    const foreign = await route.PUT(req('PUT', cookie, { text: 'From elsewhere.' }, 'https://evil.example'), none);
    expect(foreign.status).toBe(403);
    expect(await getUserInstructions(h.db, userId)).toBe('Keep me.');
  });
});
