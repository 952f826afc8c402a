import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { getLatestRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/** PATCH /api/conversations/:id: the title, extended thinking for the next turns, and the conversation's instructions. */
describe('/api/conversations/:id settings', () => {
  let h: DbHandle;
  let routes: { conversation: typeof import('./route'); messages: typeof import('./messages/route') };
  beforeAll(async () => {
    h = await openRouteRuntime('conversation', { DEMO_MODEL_DELAY_MS: '0' });
    routes = { conversation: await import('./route'), messages: await import('./messages/route') };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `c-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
    return { cookie, id: conversation.id };
  }
  const req = (method: string, cookie: string, body?: unknown) =>
    new Request('http://localhost/api/x', {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });

  it('turns extended thinking on with the default budget, and the next turn carries it', async () => {
    const { cookie, id } = await signedIn();
    expect((await (await routes.conversation.GET(req('GET', cookie), at(id))).json()).thinking).toEqual({
      enabled: false,
      budgetTokens: 8000,
      effort: 'high',
    });
    const res = await routes.conversation.PATCH(req('PATCH', cookie, { thinking: { enabled: true } }), at(id));
    expect(res.status).toBe(200);
    expect((await res.json()).thinking).toEqual({ enabled: true, budgetTokens: 8000, effort: 'high' });
    const sent = await routes.messages.POST(req('POST', cookie, { text: 'think about it' }), at(id));
    expect(sent.status).toBe(202);
    expect((await getLatestRun(h.db, id))!.thinking).toEqual({ v: 2, enabled: true, budgetTokens: 8000, effort: 'high' });
    // The effort (for a model that only thinks adaptively) is chosen on its own; the rest keeps its value.
    const effort = await routes.conversation.PATCH(req('PATCH', cookie, { thinking: { enabled: true, effort: 'low' } }), at(id));
    expect((await effort.json()).thinking).toEqual({ enabled: true, budgetTokens: 8000, effort: 'low' });
    const badEffort = await routes.conversation.PATCH(req('PATCH', cookie, { thinking: { enabled: true, effort: 'max' } }), at(id));
    expect((await badEffort.json()).error).toMatchObject({
      field: 'thinking.effort',
      message: 'thinking.effort: must be one of low, medium, high',
    });
  });

  it('says which field is wrong: a budget outside what the API takes, an empty body', async () => {
    const { cookie, id } = await signedIn();
    const bad = await routes.conversation.PATCH(req('PATCH', cookie, { thinking: { enabled: true, budgetTokens: 500 } }), at(id));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toEqual({
      code: 'bad_request:body',
      field: 'thinking.budgetTokens',
      message: 'thinking.budgetTokens: must be a whole number of tokens from 1024 to 32000 (got 500)',
    });
    const empty = await routes.conversation.PATCH(req('PATCH', cookie, {}), at(id));
    expect((await empty.json()).error.message).toBe('send a title, a thinking setting, a model or instructions');
  });

  it("sets, keeps beside a rename, and clears the conversation's instructions; too long says the field and the limit", async () => {
    const { cookie, id } = await signedIn();
    expect((await (await routes.conversation.GET(req('GET', cookie), at(id))).json()).instructions).toBe('');
    const set = await routes.conversation.PATCH(req('PATCH', cookie, { instructions: '  Answer in French.\nBe brief.  ' }), at(id));
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ id, instructions: 'Answer in French.\nBe brief.' });
    // Another field in the same PATCH keeps working, and the answer carries both.
    const both = await routes.conversation.PATCH(req('PATCH', cookie, { title: 'Trip', instructions: 'Answer in German.' }), at(id));
    expect(await both.json()).toMatchObject({ title: 'Trip', instructions: 'Answer in German.' });
    expect((await (await routes.conversation.GET(req('GET', cookie), at(id))).json()).instructions).toBe('Answer in German.');

    // 4,000 characters as a person counts them: an emoji is one (two UTF-16 units).
    const atLimit = await routes.conversation.PATCH(req('PATCH', cookie, { instructions: '😀'.repeat(4000) }), at(id));
    expect(atLimit.status).toBe(200);
    const over = await routes.conversation.PATCH(req('PATCH', cookie, { instructions: 'x'.repeat(4001) }), at(id));
    expect(over.status).toBe(400);
    expect((await over.json()).error).toEqual({
      code: 'bad_request:body',
      field: 'instructions',
      message: 'instructions: must be at most 4,000 characters (this is 4,001)',
    });
    const notText = await routes.conversation.PATCH(req('PATCH', cookie, { instructions: 42 }), at(id));
    expect((await notText.json()).error).toMatchObject({
      field: 'instructions',
      message: 'instructions: must be text (send "" to clear the instructions)',
    });
    // The refused ones changed nothing.
    expect((await (await routes.conversation.GET(req('GET', cookie), at(id))).json()).instructions).toBe('😀'.repeat(4000));

    const cleared = await routes.conversation.PATCH(req('PATCH', cookie, { instructions: '' }), at(id));
    expect((await cleared.json()).instructions).toBe('');
    expect((await (await routes.conversation.GET(req('GET', cookie), at(id))).json()).title).toBe('Trip');
  });
});
