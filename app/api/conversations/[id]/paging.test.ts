import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { listPath } from '@/db/queries/messages';
import { getLatestRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { ENDED_RUN_STATUSES, isOneOf } from '@/db/vocabulary';
import { FIRST_PAGE_MESSAGES, startsTurn } from '@/lib/chat/path-page';
import type { ConversationView, EarlierMessagesView, MessageView } from '@/lib/chat/views';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * A long conversation reaches the page a page at a time (lib/chat/path-page.ts): the view carries
 * the end of the path, `GET …/messages?before=` the pages before it, through the handlers and the
 * app's runtime with the demo model's real turns.
 */
describe('GET /api/conversations/:id and …/messages?before=: a long conversation in pages', () => {
  let h: DbHandle;
  let routes: { conversation: typeof import('./route'); messages: typeof import('./messages/route') };
  let owner: { cookie: string };
  let conversationId: string;
  const TOOL_TURNS = 10;
  const PLAIN_TURNS = 22;

  const req = (method: string, cookie: string, url = 'http://localhost/api/x', body?: unknown) =>
    new Request(url, {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });
  const earlier = (cookie: string, query: string) =>
    routes.messages.GET(req('GET', cookie, `http://localhost/api/conversations/${conversationId}/messages?${query}`), at(conversationId));
  const toolUses = (ms: MessageView[]) => ms.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));

  beforeAll(async () => {
    h = await openRouteRuntime('paging', { DEMO_MODEL_DELAY_MS: '0', SWITCHBOARD_LIMITS: '{"messagesPerMinute": 1000}' });
    routes = { conversation: await import('./route'), messages: await import('./messages/route') };
    const user = (await createUser(h.db, { email: `p-${Math.random().toString(36).slice(2)}@example.test` }))!;
    owner = await sessionCookie(h.db, user.id);
    conversationId = (await createConversation(h.db, { userId: user.id, model: 'demo' })).id;
    // Tool turns (four messages each) and plain ones (two), mixed, so page edges fall inside turns.
    for (let i = 0; i < TOOL_TURNS + PLAIN_TURNS; i++) {
      const text = i % 3 === 0 && i / 3 < TOOL_TURNS ? `call notes__search {"query": "turn ${i}"}` : `Plain turn ${i}`;
      const sent = await routes.messages.POST(req('POST', owner.cookie, undefined, { text }), at(conversationId));
      if (sent.status !== 202) throw new Error(`turn ${i}: ${sent.status} ${await sent.text()}`);
      // (expect.poll is for tests, not beforeAll.)
      for (let wait = 0; !isOneOf(ENDED_RUN_STATUSES, (await getLatestRun(h.db, conversationId))?.status ?? ''); wait++) {
        if (wait > 400) throw new Error(`turn ${i} did not end`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }, 60_000);
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  it('sends the end of the path with the view, and every page before it once, in order, each starting a turn', async () => {
    const path = (await listPath(h.db, conversationId)).map((m) => m.id);
    expect(path.length).toBe(TOOL_TURNS * 4 + PLAIN_TURNS * 2);

    const view: ConversationView = await (await routes.conversation.GET(req('GET', owner.cookie), at(conversationId))).json();
    expect(view.messages.length).toBeGreaterThanOrEqual(FIRST_PAGE_MESSAGES);
    expect(view.messages.length).toBeLessThan(path.length);
    expect(view.earlier).toBe(path.length - view.messages.length);
    expect(view.messages.map((m) => m.id)).toEqual(path.slice(view.earlier));
    expect(startsTurn(view.messages[0]!)).toBe(true);
    // The calls of the page's messages, and no other.
    expect(view.toolCalls.map((c) => c.toolUseId).sort()).toEqual(toolUses(view.messages).sort());

    const pages: EarlierMessagesView[] = [];
    let first = view.messages[0]!.id;
    for (let guard = 0; guard < 20; guard++) {
      const res = await earlier(owner.cookie, `before=${first}&limit=7`);
      expect(res.status).toBe(200);
      const page: EarlierMessagesView = await res.json();
      pages.unshift(page);
      expect(startsTurn(page.messages[0]!)).toBe(true);
      expect(page.messages.length).toBeGreaterThanOrEqual(7);
      expect(page.toolCalls.map((c) => c.toolUseId).sort()).toEqual(toolUses(page.messages).sort());
      if (page.earlier === 0) break;
      first = page.messages[0]!.id;
    }
    const all = [...pages.flatMap((p) => p.messages), ...view.messages];
    expect(all.map((m) => m.id)).toEqual(path);
    // Each turn's tokens sit once on its last message, wherever the page edges fell.
    const marked = all.filter((m) => m.usage);
    expect(marked).toHaveLength(TOOL_TURNS + PLAIN_TURNS);
    for (const m of marked) expect(all[all.indexOf(m) + 1]?.role ?? 'user').toBe('user');
    expect(pages.length).toBeGreaterThan(1);
  });

  it('answers a default page of up to 100 messages', async () => {
    const path = (await listPath(h.db, conversationId)).map((m) => m.id);
    const page: EarlierMessagesView = await (await earlier(owner.cookie, `before=${path.at(-1)}`)).json();
    expect(page.messages.map((m) => m.id)).toEqual(path.slice(0, -1));
    expect(page.earlier).toBe(0);
  });

  it('names what is wrong with the query, and finds no message of another conversation or person', async () => {
    const path = (await listPath(h.db, conversationId)).map((m) => m.id);
    const missing = await earlier(owner.cookie, 'limit=5');
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatchObject({ field: 'before' });
    for (const limit of ['0', '201', 'ten', '1.5']) {
      const res = await earlier(owner.cookie, `before=${path[5]}&limit=${limit}`);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ field: 'limit' });
      expect(error.message).toContain('1 to 200');
    }
    expect((await earlier(owner.cookie, 'before=not-an-id')).status).toBe(404);
    expect((await earlier(owner.cookie, `before=${crypto.randomUUID()}`)).status).toBe(404);

    const stranger = (await createUser(h.db, { email: `s-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, stranger.id);
    expect((await earlier(cookie, `before=${path[5]}`)).status).toBe(404);
    // The stranger's own conversation does not reach the owner's message either.
    const theirs = (await createConversation(h.db, { userId: stranger.id, model: 'demo' })).id;
    const res = await routes.messages.GET(
      req('GET', cookie, `http://localhost/api/conversations/${theirs}/messages?before=${path[5]}`),
      at(theirs),
    );
    expect(res.status).toBe(404);
  });
});
