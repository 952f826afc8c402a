import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { getConversation } from '@/db/queries/conversations';
import { listMessages } from '@/db/queries/messages';
import { getLatestRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { CONTINUE_PROMPT } from '@/lib/model/continuation';
import { TITLE_REQUEST } from '@/lib/model/titles';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

// GET /api/models, a conversation's model (create and PATCH) and `{ continue: true }`, through the
// route handlers and the app's runtime, its model a scripted Anthropic-compatible server on
// 127.0.0.1 with a key set — as a deployment with ANTHROPIC_API_KEY runs.

const API_KEY = 'sk-ant-test-0123456789abcdefghij';
const text = (t: string) => ({ type: 'text' as const, text: t });
type Reply = Exclude<Parameters<typeof startScriptedModel>[0][number], (...args: never[]) => unknown>;

describe('models and the "continue" of a cut answer, over the routes', () => {
  let h: DbHandle;
  let model: Awaited<ReturnType<typeof startScriptedModel>>;
  let routes: {
    models: typeof import('./route');
    conversations: typeof import('../conversations/route');
    conversation: typeof import('../conversations/[id]/route');
    messages: typeof import('../conversations/[id]/messages/route');
  };
  const script: Parameters<typeof startScriptedModel>[0] = [];
  beforeAll(async () => {
    model = await startScriptedModel(script, {
      models: [
        { id: 'claude-big-1', display_name: 'Claude Big', max_input_tokens: 1_000_000, max_tokens: 1_000 },
        { id: 'claude-mid-1', display_name: 'Claude Mid' },
        { id: 'claude-gone-1', display_name: 'Claude Gone', lifecycle: 'retired' },
      ],
    });
    h = await openRouteRuntime('models', { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_MODEL: 'claude-mid-1' });
    routes = {
      models: await import('./route'),
      conversations: await import('../conversations/route'),
      conversation: await import('../conversations/[id]/route'),
      messages: await import('../conversations/[id]/messages/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
    await model?.close();
  });

  async function signedIn() {
    const user = (await createUser(h.db, { email: `m-${Math.random().toString(36).slice(2)}@example.test` }))!;
    return { ...(await sessionCookie(h.db, user.id)), userId: user.id };
  }
  const req = (method: string, cookie: string, body?: unknown) =>
    new Request('http://localhost/api/x', {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });
  /**
   * The model's next answer. A conversation's first message also asks for a title (the app's
   * runtime has titles on), in either order: both requests find an entry that answers them.
   */
  function answer(reply: Reply, opts: { first?: boolean } = {}) {
    const route = (r: { body: { system?: unknown } }): Reply =>
      String(JSON.stringify(r.body.system ?? '')).includes(TITLE_REQUEST) ? { blocks: [text('A title')] } : reply;
    script.push(route, ...(opts.first ? [route] : []));
  }
  /** The first request after `before` that was not for a title. */
  const turnRequest = (before: number) =>
    model.requests.slice(before).find((r) => !String(JSON.stringify(r.body.system ?? '')).includes(TITLE_REQUEST))!.body;
  const none = { params: Promise.resolve({}) };
  async function newConversation(cookie: string, body: unknown = {}) {
    const res = await routes.conversations.POST(req('POST', cookie, body), none);
    return { res, json: await res.json() };
  }
  async function turnEnded(conversationId: string) {
    await expect.poll(async () => (await getLatestRun(h.db, conversationId))?.status, { timeout: 10_000 }).not.toBe('running');
    const ended = (await getLatestRun(h.db, conversationId))!;
    expect(ended.error).toBeNull();
    expect(ended.status).toBe('completed');
    return (await getLatestRun(h.db, conversationId))!;
  }

  it('lists the active models with their limits and the default, signed in only, never the key', async () => {
    expect((await routes.models.GET(req('GET', ''), none)).status).toBe(401);
    const { cookie } = await signedIn();
    const res = await routes.models.GET(req('GET', cookie), none);
    expect(res.status).toBe(200);
    const raw = await res.text();
    expect(JSON.parse(raw)).toEqual({
      models: [
        { id: 'claude-big-1', label: 'Claude Big', contextWindow: 1_000_000, maxOutputTokens: 1_000, thinking: 'budget' },
        { id: 'claude-mid-1', label: 'Claude Mid', contextWindow: 200_000, maxOutputTokens: 8_192, thinking: 'budget' },
      ],
      default: 'claude-mid-1',
      error: null,
    });
    // The endpoint was asked with the key; the answer carries nothing of it.
    expect(model.modelListings.length).toBeGreaterThan(0);
    expect(raw).not.toContain(API_KEY);
    expect(raw).not.toContain(model.url);
  });

  it('creates a conversation on any listed model, the configured one by default, and refuses others by field', async () => {
    const { cookie } = await signedIn();
    expect((await newConversation(cookie)).json.model).toBe('claude-mid-1');
    expect((await newConversation(cookie, { model: 'claude-big-1' })).json.model).toBe('claude-big-1');
    const bad = await newConversation(cookie, { model: 'claude-gone-1' });
    expect(bad.res.status).toBe(400);
    expect(bad.json.error).toEqual({
      code: 'bad_request:body',
      field: 'model',
      message: 'model: "claude-gone-1" is not a model this server offers; choose one of "claude-big-1", "claude-mid-1".',
    });
  });

  it('changes the model by PATCH; the next turn asks it, within its output limit', async () => {
    const { cookie } = await signedIn();
    const { json: created } = await newConversation(cookie);
    const bad = await routes.conversation.PATCH(req('PATCH', cookie, { model: 'gpt-4' }), at(created.id));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({
      field: 'model',
      message: expect.stringContaining('choose one of "claude-big-1", "claude-mid-1"'),
    });
    const empty = await routes.conversation.PATCH(req('PATCH', cookie, { model: '' }), at(created.id));
    expect((await empty.json()).error).toMatchObject({ field: 'model', message: 'model: must not be empty' });

    const res = await routes.conversation.PATCH(req('PATCH', cookie, { model: 'claude-big-1' }), at(created.id));
    expect(res.status).toBe(200);
    expect((await res.json()).model).toBe('claude-big-1');
    const before = model.requests.length;
    answer({ blocks: [text('Hello from Big.')] }, { first: true });
    expect((await routes.messages.POST(req('POST', cookie, { text: 'hi' }), at(created.id))).status).toBe(202);
    const run = await turnEnded(created.id);
    expect(run.model).toBe('claude-big-1');
    const sent = turnRequest(before);
    expect(sent.model).toBe('claude-big-1');
    // The configured 4,096 is more than Claude Big's listed 1,000.
    expect(sent.max_tokens).toBe(1_000);
  });

  it('continues an answer cut at max_tokens: the cut answer is sent back as the prefill, trimmed, and the model goes on', async () => {
    const { cookie } = await signedIn();
    const { json: created } = await newConversation(cookie);
    // Nothing to continue yet.
    const early = await routes.messages.POST(req('POST', cookie, { continue: true }), at(created.id));
    expect(early.status).toBe(409);
    expect((await early.json()).error).toMatchObject({ code: 'conflict:continue', field: 'continue' });

    answer({ blocks: [text('The three colours are red, ')], stopReason: 'max_tokens' }, { first: true });
    await routes.messages.POST(req('POST', cookie, { text: 'name three colours' }), at(created.id));
    expect((await turnEnded(created.id)).stopReason).toBe('max_tokens');

    const mixed = await routes.messages.POST(req('POST', cookie, { continue: true, text: 'and more' }), at(created.id));
    expect((await mixed.json()).error).toMatchObject({ field: 'continue', message: expect.stringContaining('send it alone') });

    const before = model.requests.length;
    answer({ blocks: [text(' green and blue.')] });
    const res = await routes.messages.POST(req('POST', cookie, { continue: true }), at(created.id));
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ mode: 'prefill', messages: [] });
    const run = await turnEnded(created.id);
    expect(run.stopReason).toBe('end_turn');
    const sent = turnRequest(before).messages;
    // (The prompt cache's breakpoint may sit on it too: lib/agent/context/cache-breakpoints.ts.)
    expect(sent.at(-1)).toEqual({ role: 'assistant', content: [expect.objectContaining(text('The three colours are red,'))] });
    expect(sent.at(-2)).toMatchObject({ role: 'user' });
    // No new user message was stored; the continuation follows the cut answer.
    const stored = await listMessages(h.db, created.id);
    expect(stored.map((m) => [m.role, m.stopReason])).toEqual([
      ['user', null],
      ['assistant', 'max_tokens'],
      ['assistant', 'end_turn'],
    ]);
    // Once continued, there is nothing left to continue.
    expect((await routes.messages.POST(req('POST', cookie, { continue: true }), at(created.id))).status).toBe(409);
  });

  it('with extended thinking on, continues by a short user message instead of a prefill', async () => {
    const { cookie, userId } = await signedIn();
    const { json: created } = await newConversation(cookie);
    await routes.conversation.PATCH(req('PATCH', cookie, { thinking: { enabled: true, budgetTokens: 1024 } }), at(created.id));
    answer(
      { blocks: [{ type: 'thinking', thinking: 'Colours.', signature: 'sig' }, text('Red, ')], stopReason: 'max_tokens' },
      { first: true },
    );
    await routes.messages.POST(req('POST', cookie, { text: 'name three colours' }), at(created.id));
    await turnEnded(created.id);
    const before = model.requests.length;
    answer({ blocks: [{ type: 'thinking', thinking: 'Go on.', signature: 'sig2' }, text('green, blue.')] });
    const res = await routes.messages.POST(req('POST', cookie, { continue: true }), at(created.id));
    const json = await res.json();
    expect(json).toMatchObject({ mode: 'prompt', messages: [{ role: 'user', content: [text(CONTINUE_PROMPT)] }] });
    await turnEnded(created.id);
    const sent = turnRequest(before);
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: [expect.objectContaining(text(CONTINUE_PROMPT))] });
    expect((await getConversation(h.db, userId, created.id))!.model).toBe('claude-mid-1');
  });
});
