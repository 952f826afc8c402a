import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { appendMessage } from '@/db/queries/messages';
import { createUser } from '@/db/queries/users';
import type { CreatedShare, SharedConversationView, ShareLinkView } from '@/lib/share/views';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * The share routes as Next.js calls them, through the real runtime: the owner's routes
 * (create, list, move, revoke), the public read with its headers, and the fork.
 */

const ORIGIN = 'http://localhost';
const NO_SUCH_SHARE = '00000000-0000-4000-8000-000000000001';

describe('share link routes', () => {
  let h: DbHandle;
  let routes: {
    shares: typeof import('../../conversations/[id]/shares/route');
    mine: typeof import('../../shares/route');
    link: typeof import('../../shares/[id]/route');
    read: typeof import('./route');
    messages: typeof import('./messages/route');
    fork: typeof import('./fork/route');
    conversation: typeof import('../../conversations/[id]/route');
  };

  beforeAll(async () => {
    h = await openRouteRuntime('share');
    routes = {
      shares: await import('../../conversations/[id]/shares/route'),
      mine: await import('../../shares/route'),
      link: await import('../../shares/[id]/route'),
      read: await import('./route'),
      messages: await import('./messages/route'),
      fork: await import('./fork/route'),
      conversation: await import('../../conversations/[id]/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `s-${randomBytes(6).toString('hex')}@example.test` }))!;
    return { userId: user.id, ...(await sessionCookie(h.db, user.id)) };
  }

  /** A conversation with one finished exchange. */
  async function answered(userId: string) {
    const c = await createConversation(h.db, { userId, model: 'demo', title: 'Trip plans' });
    await appendMessage(h.db, { conversationId: c.id, role: 'user', content: [{ type: 'text', text: 'Where to?' }] });
    await appendMessage(h.db, {
      conversationId: c.id,
      role: 'assistant',
      content: [{ type: 'text', text: 'Lisbon.' }],
      stopReason: 'end_turn',
    });
    return c.id;
  }

  function req(method: string, opts: { cookie?: string; body?: unknown; origin?: string | null } = {}) {
    const headers: Record<string, string> = {};
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.origin !== null) headers.origin = opts.origin ?? ORIGIN;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    return new Request(`${ORIGIN}/api/x`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  }
  const at = <P extends Record<string, string>>(params: P) => ({ params: Promise.resolve(params) });

  async function share(cookie: string, id: string, body: unknown = {}): Promise<CreatedShare> {
    const res = await routes.shares.POST(req('POST', { cookie, body }), at({ id }));
    expect(res.status, await res.clone().text()).toBe(201);
    return res.json();
  }
  const tokenOf = (url: string) => url.split('/share/')[1]!;

  it('creates a link with the defaults (details hidden, anyone, never), shown once with its URL', async () => {
    const owner = await signedIn();
    const id = await answered(owner.userId);
    const created = await share(owner.cookie, id);
    expect(created.url).toMatch(/^http:\/\/localhost\/share\/[A-Za-z0-9_-]{43}$/);
    expect(created.link).toMatchObject({
      conversationId: id,
      conversationTitle: 'Trip plans',
      includeToolDetails: false,
      audience: 'anyone',
      expiresAt: null,
      messageCount: 2,
    });
    const listed = (await (await routes.shares.GET(req('GET', { cookie: owner.cookie }), at({ id }))).json()) as { links: ShareLinkView[] };
    expect(listed.links.map((l) => l.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain(tokenOf(created.url));
    const all = (await (await routes.mine.GET(req('GET', { cookie: owner.cookie }), at({}))).json()) as { links: ShareLinkView[] };
    expect(all.links.map((l) => l.id)).toEqual([created.id]);
  });

  it('says which option is wrong and what is allowed', async () => {
    const owner = await signedIn();
    const id = await answered(owner.userId);
    const bad = async (body: unknown) => (await routes.shares.POST(req('POST', { cookie: owner.cookie, body }), at({ id }))).json();
    expect(await bad({ expiresIn: '2d' })).toEqual({
      error: { code: 'bad_request:body', field: 'expiresIn', message: 'expiresIn: must be one of never, 1d, 7d, 30d' },
    });
    expect((await bad({ audience: 'everyone' })).error).toMatchObject({
      field: 'audience',
      message: 'audience: must be one of anyone, signed_in',
    });
    expect((await bad({ includeToolDetails: 'yes' })).error.field).toBe('includeToolDetails');
    expect((await bad({ token: 'x' })).error.code).toBe('bad_request:body');
    const patch = await routes.link.PATCH(req('PATCH', { cookie: owner.cookie, body: { snapshot: 'oldest' } }), at({ id: NO_SUCH_SHARE }));
    expect((await patch.json()).error.field).toBe('snapshot');
  });

  it('answers the shared JSON with no-store, no referrer and noindex — errors too — and 404 once revoked', async () => {
    const owner = await signedIn();
    const id = await answered(owner.userId);
    const created = await share(owner.cookie, id);
    const token = tokenOf(created.url);
    const res = await routes.read.GET(req('GET'), at({ token }));
    expect(res.status).toBe(200);
    const view = (await res.json()) as SharedConversationView;
    expect(view).toMatchObject({ title: 'Trip plans', includeToolDetails: false, audience: 'anyone', updatedAt: null });
    expect(view.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    for (const r of [res, await routes.read.GET(req('GET'), at({ token: 'nope' }))]) {
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-robots-tag')).toMatch(/noindex/);
    }
    // Another user cannot revoke it; the owner can, and it is gone at once.
    const other = await signedIn();
    expect((await routes.link.DELETE(req('DELETE', { cookie: other.cookie }), at({ id: created.id }))).status).toBe(404);
    expect((await routes.link.DELETE(req('DELETE', { cookie: owner.cookie }), at({ id: created.id }))).status).toBe(204);
    const gone = await routes.read.GET(req('GET'), at({ token }));
    expect(gone.status).toBe(404);
    expect((await gone.json()).error.code).toBe('not_found:share');
  });

  it('reads the page after a message of the snapshot, names a wrong query, and keeps the read’s headers and audience', async () => {
    const owner = await signedIn();
    const id = await answered(owner.userId);
    const token = tokenOf((await share(owner.cookie, id)).url);
    const view = (await (await routes.read.GET(req('GET'), at({ token }))).json()) as SharedConversationView;
    expect(view).toMatchObject({ later: 0, next: null });
    const page = (query: string, cookie?: string) =>
      routes.messages.GET(
        new Request(`${ORIGIN}/api/share/${token}/messages?${query}`, { headers: cookie ? { cookie } : {} }),
        at({ token }),
      );

    const after = await page(`after=${view.messages[0]!.id}&limit=1`);
    expect(after.status).toBe(200);
    expect(after.headers.get('cache-control')).toBe('no-store');
    expect(await after.json()).toMatchObject({ messages: [{ id: view.messages[1]!.id, role: 'assistant' }], later: 0, next: null });

    const missing = await page('limit=5');
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatchObject({ field: 'after' });
    const tooMany = await page(`after=${view.messages[0]!.id}&limit=500`);
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error.message).toMatch(/^limit: must be a whole number from 1 to 200/);
    expect((await page('after=not-an-id')).status).toBe(404);

    const { url } = await share(owner.cookie, id, { audience: 'signed_in' });
    const signedOut = await routes.messages.GET(
      new Request(`${ORIGIN}/api/share/x/messages?after=${view.messages[0]!.id}`),
      at({ token: tokenOf(url) }),
    );
    expect(signedOut.status).toBe(401);
  });

  it('a signed-in-only link is 401 signed out and readable signed in', async () => {
    const owner = await signedIn();
    const id = await answered(owner.userId);
    const { url } = await share(owner.cookie, id, { audience: 'signed_in' });
    const out = await routes.read.GET(req('GET'), at({ token: tokenOf(url) }));
    expect(out.status).toBe(401);
    expect((await out.json()).error.code).toBe('unauthorized:share');
    const reader = await signedIn();
    expect((await routes.read.GET(req('GET', { cookie: reader.cookie }), at({ token: tokenOf(url) }))).status).toBe(200);
  });

  it('moves a snapshot to the newest message, and forks with a session from our own origin only', async () => {
    const owner = await signedIn();
    const id = await answered(owner.userId);
    const created = await share(owner.cookie, id);
    await appendMessage(h.db, { conversationId: id, role: 'user', content: [{ type: 'text', text: 'And after?' }] });
    await appendMessage(h.db, {
      conversationId: id,
      role: 'assistant',
      content: [{ type: 'text', text: 'Porto.' }],
      stopReason: 'end_turn',
    });
    const moved = await routes.link.PATCH(req('PATCH', { cookie: owner.cookie, body: { snapshot: 'latest' } }), at({ id: created.id }));
    expect(await moved.json()).toMatchObject({ messageCount: 4, updated: true });

    const token = tokenOf(created.url);
    const reader = await signedIn();
    expect((await routes.fork.POST(req('POST', { body: {} }), at({ token }))).status).toBe(401);
    expect(
      (await routes.fork.POST(req('POST', { cookie: reader.cookie, body: {}, origin: 'http://evil.test' }), at({ token }))).status,
    ).toBe(403);
    const forked = await routes.fork.POST(req('POST', { cookie: reader.cookie, body: {} }), at({ token }));
    expect(forked.status).toBe(201);
    const { conversationId } = (await forked.json()) as { conversationId: string };
    const copy = await (await routes.conversation.GET(req('GET', { cookie: reader.cookie }), at({ id: conversationId }))).json();
    expect(copy.forkedFrom).toMatchObject({ title: 'Trip plans', toolDetailsHidden: true });
    expect(copy.messages.map((m: { content: { text: string }[] }) => m.content[0]!.text)).toEqual([
      'Where to?',
      'Lisbon.',
      'And after?',
      'Porto.',
    ]);
    // The owner cannot read the reader's copy (it is the reader's own conversation).
    expect((await routes.conversation.GET(req('GET', { cookie: owner.cookie }), at({ id: conversationId }))).status).toBe(404);
  });
});
