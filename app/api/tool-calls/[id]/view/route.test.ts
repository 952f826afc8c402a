import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { getLatestRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { APPS_VIEW_URI, startAppsFixtureServer, type AppsFixtureServer } from '@/test/fixtures/apps-fixture';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * MCP Apps, the server side: a tool's declared view survives the listing, a tool marked for its
 * views only is never offered to the model, and GET /api/tool-calls/:id/view serves the view of
 * one call — to its owner only, only the view the call recorded, only as an MCP App document —
 * through the app's runtime and a real App fixture (the ext-apps server helpers) on loopback.
 */
describe('interactive views (MCP Apps)', () => {
  let h: DbHandle;
  let fx: AppsFixtureServer;
  let routes: {
    view: typeof import('./route');
    messages: typeof import('../../../conversations/[id]/messages/route');
    conversation: typeof import('../../../conversations/[id]/route');
    decision: typeof import('../decision/route');
    servers: typeof import('../../../servers/route');
    enable: typeof import('../../../servers/[id]/enable/route');
    server: typeof import('../../../servers/[id]/route');
    grants: typeof import('../../../conversations/[id]/grants/route');
  };
  beforeAll(async () => {
    h = await openRouteRuntime('apps', { DEMO_MODEL_DELAY_MS: '0', MCP_ALLOW_LOOPBACK: 'true' });
    fx = await startAppsFixtureServer();
    routes = {
      view: await import('./route'),
      messages: await import('../../../conversations/[id]/messages/route'),
      conversation: await import('../../../conversations/[id]/route'),
      decision: await import('../decision/route'),
      servers: await import('../../../servers/route'),
      enable: await import('../../../servers/[id]/enable/route'),
      server: await import('../../../servers/[id]/route'),
      grants: await import('../../../conversations/[id]/grants/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await fx?.close();
    await h?.close();
  });

  const req = (method: string, cookie: string, body?: unknown, headers: Record<string, string> = {}) =>
    new Request('http://localhost/api/x', {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });

  type ListedTool = { name: string; fingerprint: string };

  /** A person with the App fixture added and enabled (every tool reviewed), and a conversation where its tools are switched on. */
  async function person() {
    const user = (await createUser(h.db, { email: `a-${Math.random().toString(36).slice(2)}@example.test`, plan: 'pro' }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const added = await routes.servers.POST(req('POST', cookie, { name: 'Apps', namespace: 'apps', url: fx.url }), {
      params: Promise.resolve({}),
    });
    expect(added.status).toBe(201);
    const server = (await added.json()).server as { id: string; tools: ListedTool[] };
    const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
    expect((await routes.enable.POST(req('POST', cookie, { tools }), at(server.id))).status).toBe(200);
    const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
    const granted = await routes.grants.PUT(req('PUT', cookie, { scope: `server:${server.id}/*`, enabled: true }), at(conversation.id));
    expect(granted.status).toBe(200);
    return { cookie, id: conversation.id, tools: server.tools, userId: user.id };
  }

  async function settled(id: string) {
    for (let i = 0; i < 200; i++) {
      const run = await getLatestRun(h.db, id);
      if (run && run.status !== 'running') return run;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the run did not settle');
  }

  type CallView = { id: string; tool: string; status: string; argsHash: string; hasView: boolean; result: unknown };

  /** Has the demo model call one tool, approves it once, and returns the finished call as the page sees it. */
  async function calledTool(p: { cookie: string; id: string }, line: string): Promise<CallView> {
    expect((await routes.messages.POST(req('POST', p.cookie, { text: line }), at(p.id))).status).toBe(202);
    const paused = await settled(p.id);
    let calls = (await (await routes.conversation.GET(req('GET', p.cookie), at(p.id))).json()).toolCalls as CallView[];
    if (paused.status === 'awaiting_approval') {
      const pending = calls.at(-1)!;
      const decided = await routes.decision.POST(
        req('POST', p.cookie, { decision: 'allow_once', argsHash: pending.argsHash }),
        at(pending.id),
      );
      expect(decided.status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect((await settled(p.id)).status).toBe('completed');
      calls = (await (await routes.conversation.GET(req('GET', p.cookie), at(p.id))).json()).toolCalls as CallView[];
    }
    return calls.at(-1)!;
  }

  it('keeps a tool’s view when listed; a tool for its views only is never offered to the model', async () => {
    const p = await person();
    // The servers page lists every tool (the person reviews the app-only one too).
    expect(p.tools.map((t) => t.name).sort()).toEqual(['count_clicks', 'hostile_view', 'plain_tool', 'show_greeting', 'wrong_mime']);
    const call = await calledTool(p, 'call apps__count_clicks {}');
    expect(call.status).toBe('rejected');
    expect(JSON.stringify(call.result)).toContain('There is no tool named \\"apps__count_clicks\\" in this conversation');
    expect(fx.calls.some((c) => c.name === 'count_clicks')).toBe(false);
  });

  it('serves the view of a finished call to its owner, with a CSP that allows no network and frames only by our pages', async () => {
    const p = await person();
    const call = await calledTool(p, 'call apps__show_greeting {"name": "Ada"}');
    expect(call).toMatchObject({ tool: 'show_greeting', status: 'succeeded', hasView: true });
    const res = await routes.view.GET(req('GET', p.cookie, undefined, { 'sec-fetch-dest': 'iframe' }), at(call.id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain('sandbox allow-scripts');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('allow-same-origin');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('Fixture app view');
    // Opened as a page of its own, it is refused (a frame is the only place for it).
    const asPage = await routes.view.GET(req('GET', p.cookie, undefined, { 'sec-fetch-dest': 'document' }), at(call.id));
    expect(asPage.status).toBe(400);
  });

  it('answers 404 to anyone but the owner, and for a call whose tool declared no view', async () => {
    const p = await person();
    const call = await calledTool(p, 'call apps__show_greeting {"name": "Grace"}');
    const other = await person();
    const stranger = await routes.view.GET(req('GET', other.cookie), at(call.id));
    expect(stranger.status).toBe(404);
    expect((await stranger.json()).error.code).toBe('not_found:tool_call');

    const plain = await calledTool(p, 'call apps__plain_tool {}');
    expect(plain.hasView).toBe(false);
    const res = await routes.view.GET(req('GET', p.cookie), at(plain.id));
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toBe('The tool of this call (apps__plain_tool) declared no interactive view.');
  });

  it('refuses a view that is not an MCP App document', async () => {
    const p = await person();
    const call = await calledTool(p, 'call apps__wrong_mime {}');
    expect(call.hasView).toBe(true);
    const res = await routes.view.GET(req('GET', p.cookie), at(call.id));
    expect(res.status).toBe(502);
    expect((await res.json()).error.message).toContain('an interactive view must be "text/html;profile=mcp-app"');
  });

  it('pins the view’s page in its tool’s fingerprint: a changed page is never served, and the tool waits for review', async () => {
    const p = await person();
    type Reviewed = {
      name: string;
      fingerprint: string;
      reviewed: boolean;
      view: { resourceUri: string; contentHash: string | null } | null;
    };
    const listed = (p.tools as Reviewed[]).find((t) => t.name === 'show_greeting')!;
    expect(listed.view).toMatchObject({ resourceUri: APPS_VIEW_URI, contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    const call = await calledTool(p, 'call apps__show_greeting {"name": "Kim"}');
    const { getRuntime } = await import('@/lib/server/runtime');
    const rt = await getRuntime();
    const [apps] = (await rt.tools.host.serversFor(p.userId)).filter((s) => s.displayName === 'Apps');
    const reviewedListing = await rt.tools.host.gateway.listTools(apps!, { userId: p.userId });
    fx.setGreetingExtra('<script>/* swapped after review */</script>');
    try {
      // A listing kept from before (a legacy server's, cached): the page read now is not the one it pinned.
      vi.spyOn(rt.tools.host.gateway, 'listTools').mockResolvedValueOnce(reviewedListing);
      const swapped = await routes.view.GET(req('GET', p.cookie, undefined, { 'sec-fetch-dest': 'iframe' }), at(call.id));
      expect(swapped.status).toBe(409);
      expect((await swapped.json()).error.message).toBe(
        `Apps's view ${APPS_VIEW_URI} is not the one listed for review; review "show_greeting" on the servers page.`,
      );
      // Listed again: a new fingerprint, the tool is no longer reviewed (so it is not offered), and its view is refused.
      for (const s of await rt.tools.host.serversFor(p.userId))
        await rt.tools.host.gateway.listTools(s, { userId: p.userId }, { refresh: true });
      const servers = (await (await routes.servers.GET(req('GET', p.cookie), { params: Promise.resolve({}) })).json()).servers as {
        tools: Reviewed[];
      }[];
      const now = servers.flatMap((s) => s.tools).find((t) => t.name === 'show_greeting')!;
      expect(now.fingerprint).not.toBe(listed.fingerprint);
      expect(now.view!.contentHash).not.toBe(listed.view!.contentHash);
      expect(now.reviewed).toBe(false);
      const refused = await routes.view.GET(req('GET', p.cookie, undefined, { 'sec-fetch-dest': 'iframe' }), at(call.id));
      expect(refused.status).toBe(409);
      expect((await refused.json()).error.message).toBe(
        'Apps\'s tool "show_greeting" is not available: it changed since you reviewed it or is no longer listed; see the servers page.',
      );
    } finally {
      fx.setGreetingExtra('');
    }
  });

  it('with the server’s views switched off, the card gets no view and nothing of it is read', async () => {
    const p = await person();
    const call = await calledTool(p, 'call apps__show_greeting {"name": "Noor"}');
    const { getRuntime } = await import('@/lib/server/runtime');
    const rt = await getRuntime();
    const [apps] = (await rt.tools.host.serversFor(p.userId)).filter((s) => s.displayName === 'Apps');
    const patch = (body: unknown) => routes.server.PATCH(req('PATCH', p.cookie, body), at(apps!.id));
    const bad = await patch({ showViews: 'no' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ field: 'showViews', message: 'showViews must be true or false (got "no").' });
    const off = await patch({ showViews: false });
    expect(off.status, await off.clone().text()).toBe(200);
    expect((await off.json()).server).toMatchObject({ showViews: false });

    const view = await (await routes.conversation.GET(req('GET', p.cookie), at(p.id))).json();
    expect(view.toolCalls.at(-1)).toMatchObject({ id: call.id, hasView: true, viewsOff: true });
    // Listing this server (which comes before any read of its view) would fail the request: it answers before.
    const gateway = rt.tools.host.gateway;
    const original = gateway.listTools.bind(gateway);
    const listing = vi
      .spyOn(gateway, 'listTools')
      .mockImplementation((s, ...rest) => (s.id === apps!.id ? Promise.reject(new Error('listed')) : original(s, ...rest)));
    const res = await routes.view.GET(req('GET', p.cookie, undefined, { 'sec-fetch-dest': 'iframe' }), at(call.id));
    listing.mockRestore();
    expect(res.status).toBe(409);
    expect((await res.json()).error.message).toBe('Interactive views of Apps are switched off (servers page).');

    expect((await patch({ showViews: true })).status).toBe(200);
    const back = await routes.view.GET(req('GET', p.cookie, undefined, { 'sec-fetch-dest': 'iframe' }), at(call.id));
    expect(back.status).toBe(200);
  });

  it('serves only the view the call recorded: a tool that now names another view is refused', async () => {
    const p = await person();
    const call = await calledTool(p, 'call apps__show_greeting {"name": "Lin"}');
    fx.setGreetingUri('ui://fixture/other.html');
    try {
      // A fresh listing (the cached one would still say the old view).
      const { getRuntime } = await import('@/lib/server/runtime');
      const rt = await getRuntime();
      for (const s of await rt.tools.host.serversFor(p.userId))
        await rt.tools.host.gateway.listTools(s, { userId: p.userId }, { refresh: true });
      const res = await routes.view.GET(req('GET', p.cookie), at(call.id));
      expect(res.status).toBe(409);
      // A tool that names another view has changed: it waits for review, and the recorded view is not served.
      expect((await res.json()).error.message).toContain('"show_greeting" is not available: it changed since you reviewed it');
    } finally {
      fx.setGreetingUri(APPS_VIEW_URI);
    }
  });
});
