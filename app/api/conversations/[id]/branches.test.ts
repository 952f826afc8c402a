import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { getLatestRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { ENDED_RUN_STATUSES, isOneOf } from '@/db/vocabulary';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/** The branch routes through their handlers and the app's runtime (the demo model): shapes and field errors. */
describe('POST …/messages {parentId}, POST …/regenerate, PUT …/active', () => {
  let h: DbHandle;
  let routes: {
    conversation: typeof import('./route');
    messages: typeof import('./messages/route');
    regenerate: typeof import('./regenerate/route');
    active: typeof import('./active/route');
  };
  beforeAll(async () => {
    h = await openRouteRuntime('branches', { DEMO_MODEL_DELAY_MS: '0' });
    routes = {
      conversation: await import('./route'),
      messages: await import('./messages/route'),
      regenerate: await import('./regenerate/route'),
      active: await import('./active/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  const req = (method: string, cookie: string, body?: unknown) =>
    new Request('http://localhost/api/x', {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });
  async function ended(id: string) {
    await expect
      .poll(async () => isOneOf(ENDED_RUN_STATUSES, (await getLatestRun(h.db, id))?.status ?? ''), { timeout: 10_000 })
      .toBe(true);
  }
  async function conversationView(cookie: string, id: string) {
    return (await routes.conversation.GET(req('GET', cookie), at(id))).json();
  }

  it('edits, regenerates and switches; each answers what the page needs', async () => {
    const user = (await createUser(h.db, { email: `b-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const { id } = await createConversation(h.db, { userId: user.id, model: 'demo' });
    const sent = await routes.messages.POST(req('POST', cookie, { text: 'hello' }), at(id));
    expect(sent.status).toBe(202);
    // Plain words come back as stored too: the page edits a message sent a moment ago by its real id and parent.
    const [stored] = (await sent.json()).messages;
    expect(stored).toMatchObject({ id: expect.any(String), role: 'user', parentId: null, content: [{ type: 'text', text: 'hello' }] });
    await ended(id);
    const [question, answer] = (await conversationView(cookie, id)).messages;
    expect(question.id).toBe(stored.id);

    const again = await routes.regenerate.POST(req('POST', cookie, { messageId: answer.id }), at(id));
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ runId: expect.any(String), afterSeq: expect.any(Number), parentId: question.id });
    await ended(id);
    const regenerated = await conversationView(cookie, id);
    expect(regenerated.messages).toHaveLength(2);
    expect(regenerated.messages[1].branch).toEqual({ index: 1, count: 2, siblingIds: [answer.id, regenerated.messages[1].id] });

    const edit = await routes.messages.POST(req('POST', cookie, { text: 'hello again', parentId: null }), at(id));
    expect(edit.status).toBe(202);
    await ended(id);
    const edited = await conversationView(cookie, id);
    expect(edited.messages[0]).toMatchObject({ parentId: null, branch: { index: 1, count: 2 } });
    expect(edited.activeLeafId).toBe(edited.messages[1].id);

    const back = await routes.active.PUT(req('PUT', cookie, { leafId: question.id }), at(id));
    expect(back.status).toBe(200);
    const switched = await back.json();
    expect(switched).toMatchObject({ leafId: regenerated.messages[1].id, resolvedFrom: question.id });
    expect(switched.conversation.messages.map((m: { id: string }) => m.id)).toEqual([question.id, regenerated.messages[1].id]);
    expect(switched.conversation.activeLeafId).toBe(switched.leafId);
  });

  it('names the field of a malformed body', async () => {
    const user = (await createUser(h.db, { email: `b-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const { id } = await createConversation(h.db, { userId: user.id, model: 'demo' });
    const cases = [
      [routes.messages.POST(req('POST', cookie, { text: 'x', parentId: 'nope' }), at(id)), 'parentId'],
      [routes.messages.POST(req('POST', cookie, { continue: true, parentId: null }), at(id)), 'continue'],
      [routes.regenerate.POST(req('POST', cookie, {}), at(id)), 'messageId'],
      [routes.active.PUT(req('PUT', cookie, { leafId: 7 }), at(id)), 'leafId'],
    ] as const;
    for (const [pending, field] of cases) {
      const res = await pending;
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'bad_request:body', field });
    }
  });
});
