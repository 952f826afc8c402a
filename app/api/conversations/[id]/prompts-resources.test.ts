import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { getLatestRun } from '@/db/queries/runs';
import { getConversationTaint } from '@/db/queries/taint';
import { createUser } from '@/db/queries/users';
import { FIXTURE_README_URI } from '@/test/fixtures/fixture-content';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * GET …/prompts and …/resources, and POST …/messages with a prompt or attachments, through the
 * app's runtime (the URL guard with loopback allowed, the demo model) and a real fixture server
 * added and enabled through the servers routes.
 */
describe('prompts and resources through the routes', () => {
  let h: DbHandle;
  let fx: FixtureServer;
  let routes: {
    prompts: typeof import('./prompts/route');
    resources: typeof import('./resources/route');
    messages: typeof import('./messages/route');
    conversation: typeof import('./route');
    servers: typeof import('../../servers/route');
  };
  beforeAll(async () => {
    h = await openRouteRuntime('prompts', { DEMO_MODEL_DELAY_MS: '0', MCP_ALLOW_LOOPBACK: 'true' });
    fx = await startFixtureServer();
    routes = {
      prompts: await import('./prompts/route'),
      resources: await import('./resources/route'),
      messages: await import('./messages/route'),
      conversation: await import('./route'),
      servers: await import('../../servers/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await fx?.close();
    await h?.close();
  });

  const req = (method: string, cookie: string, body?: unknown) =>
    new Request('http://localhost/api/x', {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });

  /** A signed-in person with the fixture server added (untrusted, the default) and enabled, and a conversation. */
  async function withServer() {
    const user = (await createUser(h.db, { email: `p-${Math.random().toString(36).slice(2)}@example.test`, plan: 'pro' }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const added = await routes.servers.POST(req('POST', cookie, { name: 'Fixture docs', namespace: 'fxd', url: fx.url }), {
      params: Promise.resolve({}),
    });
    expect(added.status).toBe(201);
    const server = (await added.json()).server as { id: string; tools: { name: string; fingerprint: string }[] };
    const enable = await import('../../servers/[id]/enable/route');
    const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
    expect((await enable.POST(req('POST', cookie, { tools }), at(server.id))).status).toBe(200);
    const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
    return { cookie, serverId: server.id, id: conversation.id, userId: user.id };
  }

  async function finished(id: string) {
    for (let i = 0; i < 100; i++) {
      const run = await getLatestRun(h.db, id);
      if (run && !['running', 'awaiting_approval'].includes(run.status)) return run;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the run did not finish');
  }

  it('lists the enabled servers’ prompts, resources and templates; a server with nothing to offer is left out', async () => {
    const { cookie, serverId, id } = await withServer();
    const prompts = await (await routes.prompts.GET(req('GET', cookie), at(id))).json();
    expect(prompts.servers.map((s: { serverId: string }) => s.serverId)).toEqual([serverId]);
    expect(prompts.servers[0]).toMatchObject({ serverName: 'Fixture docs', trust: 'untrusted', error: null, needsSignIn: false });
    expect(prompts.servers[0].prompts[0]).toMatchObject({
      name: 'summarize',
      arguments: [{ name: 'topic', required: true }, { name: 'style' }],
    });
    const resources = await (await routes.resources.GET(req('GET', cookie), at(id))).json();
    const fixture = resources.servers.find((s: { serverId: string }) => s.serverId === serverId);
    expect(fixture.resources.map((r: { uri: string }) => r.uri)).toContain(FIXTURE_README_URI);
    expect(fixture.templates[0]).toMatchObject({ name: 'greeting', variables: ['name'] });
  });

  it('runs a prompt: 202 with the stored messages marked by the server, the turn answers, the conversation shows the origin', async () => {
    const { cookie, serverId, id } = await withServer();
    const res = await routes.messages.POST(
      req('POST', cookie, { prompt: { serverId, name: 'summarize', arguments: { topic: 'tides' } } }),
      at(id),
    );
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body.messages).toEqual([
      expect.objectContaining({
        role: 'user',
        content: [{ type: 'text', text: 'Summarize tides.' }],
        origin: { v: 1, kind: 'prompt', serverId, serverName: 'Fixture docs', name: 'summarize' },
      }),
    ]);
    expect((await finished(id)).status).toBe('completed');
    const view = await (await routes.conversation.GET(req('GET', cookie), at(id))).json();
    expect(view.messages[0].origin).toMatchObject({ kind: 'prompt', name: 'summarize' });
    expect(view.messages[1].content[0].text).toContain('Summarize tides.');
    expect(view.title).toMatch(/^Summarize tides/); // the prompt's first line names the conversation
    expect(await getConversationTaint(h.db, id)).toMatchObject({ source: 'prompt', serverId, prompt: 'summarize' });
  });

  it('attaches a resource: the model quotes it, and the untrusted server taints the conversation', async () => {
    const { cookie, serverId, id } = await withServer();
    const res = await routes.messages.POST(
      req('POST', cookie, { text: 'What does the readme say?', attachments: [{ serverId, uri: FIXTURE_README_URI }] }),
      at(id),
    );
    expect(res.status).toBe(202);
    expect((await res.json()).messages[0].origin.resources).toEqual([
      expect.objectContaining({ serverId, serverName: 'Fixture docs', uri: FIXTURE_README_URI }),
    ]);
    await finished(id);
    const view = await (await routes.conversation.GET(req('GET', cookie), at(id))).json();
    expect(view.messages[1].content[0].text).toContain('begins: “The fixture readme says: tea is served at four.”');
    expect(await getConversationTaint(h.db, id)).toMatchObject({ source: 'resource', uri: FIXTURE_README_URI });
  });

  it('says which field is wrong', async () => {
    const { cookie, serverId, id } = await withServer();
    const errorOf = async (body: unknown) => (await (await routes.messages.POST(req('POST', cookie, body), at(id))).json()).error;
    expect(await errorOf({ text: 'x', attachments: [{ serverId, toolCallId: crypto.randomUUID(), uri: 'a' }] })).toMatchObject({
      field: 'attachments.0.serverId',
      message: 'attachments.0.serverId: give either serverId or toolCallId (the call whose result linked to it), and not both',
    });
    expect(await errorOf({ text: 'x', attachments: [{ serverId, uri: '' }] })).toMatchObject({ field: 'attachments.0.uri' });
    expect(await errorOf({ prompt: { serverId, name: 'summarize', arguments: { topic: 3 } } })).toMatchObject({
      field: 'prompt.arguments.topic',
      message: 'prompt.arguments.topic: must be a string',
    });
    expect(
      await errorOf({ prompt: { serverId, name: 'summarize', arguments: { topic: 'a' } }, attachments: [{ serverId, uri: 'x' }] }),
    ).toMatchObject({
      field: 'attachments',
    });
    expect(await errorOf({ prompt: { serverId, name: 'summarize' } })).toMatchObject({
      field: 'prompt.arguments.topic',
      code: 'bad_request:body',
    });
    expect(await errorOf({})).toMatchObject({ field: 'text', message: 'text: must not be empty' });
    expect(await errorOf({ text: 'x', attachments: [{ serverId, uri: 'fixture://none' }] })).toMatchObject({
      code: 'bad_gateway:server',
      message: expect.stringContaining('Fixture docs'),
    });
    // Nothing was started by any of them.
    expect(await getLatestRun(h.db, id)).toBeNull();
  });

  it('another person’s conversation is a 404, and their servers are not offered', async () => {
    const owner = await withServer();
    const other = await withServer();
    expect((await routes.prompts.GET(req('GET', other.cookie), at(owner.id))).status).toBe(404);
    expect((await routes.resources.GET(req('GET', other.cookie), at(owner.id))).status).toBe(404);
    const res = await routes.messages.POST(
      req('POST', other.cookie, { prompt: { serverId: owner.serverId, name: 'summarize', arguments: { topic: 'a' } } }),
      at(other.id),
    );
    expect(await res.json()).toMatchObject({ error: { field: 'prompt.serverId' } });
  });
});
