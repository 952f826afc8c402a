import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { listEventsAfter } from '@/db/queries/events';
import { getLatestRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { toolCalls } from '@/db/schema';
import { VIEW_CALL_LIMITS, viewCallRateRefusal } from '@/lib/agent/view-call-limits';
import { startAppsFixtureServer, type AppsFixtureServer } from '@/test/fixtures/apps-fixture';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';
import { sseReader, type Frame } from '@/test/sse-reader';

/**
 * MCP Apps: a view's `tools/call` (POST /api/tool-calls/:id/view/calls) through the same consent as
 * the model's calls — an auto-approving grant runs it at once, otherwise it waits for the person's
 * decision on the ordinary decision route (deny: never run; allow once: run once); it is audited as
 * asked by the view; only tools of the view's own server, with valid arguments, for the owner only;
 * and nothing of it reaches the model's history. The real App fixture on loopback, the app's routes.
 */
describe('calls from an interactive view', () => {
  let h: DbHandle;
  let fx: AppsFixtureServer;
  let routes: {
    calls: typeof import('./route');
    context: typeof import('../context/route');
    messages: typeof import('../../../../conversations/[id]/messages/route');
    conversation: typeof import('../../../../conversations/[id]/route');
    decision: typeof import('../../decision/route');
    servers: typeof import('../../../../servers/route');
    server: typeof import('../../../../servers/[id]/route');
    enable: typeof import('../../../../servers/[id]/enable/route');
    grants: typeof import('../../../../conversations/[id]/grants/route');
    activity: typeof import('../../../../activity/route');
    events: typeof import('../../../../conversations/[id]/events/route');
  };
  beforeAll(async () => {
    // Short pings: a stream held for a view's calls looks again at each one.
    h = await openRouteRuntime('view-calls', { DEMO_MODEL_DELAY_MS: '0', MCP_ALLOW_LOOPBACK: 'true', SSE_PING_MS: '300' });
    fx = await startAppsFixtureServer();
    routes = {
      calls: await import('./route'),
      context: await import('../context/route'),
      messages: await import('../../../../conversations/[id]/messages/route'),
      conversation: await import('../../../../conversations/[id]/route'),
      decision: await import('../../decision/route'),
      servers: await import('../../../../servers/route'),
      server: await import('../../../../servers/[id]/route'),
      enable: await import('../../../../servers/[id]/enable/route'),
      grants: await import('../../../../conversations/[id]/grants/route'),
      activity: await import('../../../../activity/route'),
      events: await import('../../../../conversations/[id]/events/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await fx?.close();
    await h?.close();
  });

  const req = (method: string, cookie: string, body?: unknown, url = 'http://localhost/api/x') =>
    new Request(url, {
      method,
      headers: { cookie, origin: 'http://localhost', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });
  const clicks = () => fx.calls.filter((c) => c.name === 'count_clicks').length;

  type CallView = {
    id: string;
    tool: string;
    status: string;
    argsHash: string;
    askedByView: boolean;
    result: unknown;
    verdict: { reason: string } | null;
  };

  /** A person with the App fixture enabled and switched on, and a finished show_greeting call whose view asks. */
  async function viewOfGreeting(grants: { scope: string; enabled: boolean; autoApprove?: boolean }[] = [], trusted = false) {
    const user = (await createUser(h.db, { email: `v-${Math.random().toString(36).slice(2)}@example.test`, plan: 'pro' }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const added = await routes.servers.POST(
      req('POST', cookie, { name: 'Apps', namespace: 'apps', url: fx.url, ...(trusted && { trust: 'trusted', trustContent: true }) }),
      {
        params: Promise.resolve({}),
      },
    );
    expect(added.status).toBe(201);
    const server = (await added.json()).server as { id: string; tools: { name: string; fingerprint: string }[] };
    const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
    expect((await routes.enable.POST(req('POST', cookie, { tools }), at(server.id))).status).toBe(200);
    const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
    for (const g of [
      { scope: `server:${server.id}/*`, enabled: true },
      ...grants.map((g) => ({ ...g, scope: g.scope.replace('$', server.id) })),
    ]) {
      expect((await routes.grants.PUT(req('PUT', cookie, g), at(conversation.id))).status).toBe(200);
    }
    const id = conversation.id;
    expect((await routes.messages.POST(req('POST', cookie, { text: 'call apps__show_greeting {"name": "Ada"}' }), at(id))).status).toBe(
      202,
    );
    let run = await settledRun(id);
    let calls = (await (await routes.conversation.GET(req('GET', cookie), at(id))).json()).toolCalls as CallView[];
    if (run.status === 'awaiting_approval') {
      const decided = await routes.decision.POST(
        req('POST', cookie, { decision: 'allow_once', argsHash: calls[0]!.argsHash }),
        at(calls[0]!.id),
      );
      expect(decided.status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      run = await settledRun(id);
      calls = (await (await routes.conversation.GET(req('GET', cookie), at(id))).json()).toolCalls as CallView[];
    }
    expect(run.status).toBe('completed');
    expect(calls[0]).toMatchObject({ tool: 'show_greeting', status: 'succeeded' });
    return { cookie, userId: user.id, conversationId: id, serverId: server.id, greeting: calls[0]!.id };
  }

  async function settledRun(id: string) {
    for (let i = 0; i < 200; i++) {
      const run = await getLatestRun(h.db, id);
      if (run && run.status !== 'running') return run;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the run did not settle');
  }

  const ask = (cookie: string, viewOf: string, body: unknown) => routes.calls.POST(req('POST', cookie, body), at(viewOf));

  async function auditOf(cookie: string, toolCallId: string) {
    const res = await routes.activity.GET(req('GET', cookie, undefined, `http://localhost/api/activity?toolCall=${toolCallId}`), {
      params: Promise.resolve({}),
    });
    expect(res.status).toBe(200);
    return ((await res.json()).entries as { content: Record<string, unknown> }[]).map((e) => e.content);
  }

  /** Nothing a view's call returned is in what the model reads, and the conversation's calls are the model's only. */
  async function modelSawNothing(cookie: string, conversationId: string, text: string) {
    const view = await (await routes.conversation.GET(req('GET', cookie), at(conversationId))).json();
    expect(JSON.stringify(view.messages)).not.toContain(text);
    expect((view.toolCalls as CallView[]).map((c) => c.tool)).toEqual(['show_greeting']);
    expect(view.activeRun).toBeNull();
  }

  it('runs at once under an auto-approving grant, audited as asked by the view, and keeps it from the model', async () => {
    const autoGrant = { scope: 'tool:$/count_clicks', enabled: true, autoApprove: true };
    // The taint rule holds for a view as for the model: the greeting's untrusted content is in the conversation.
    const tainted = await viewOfGreeting([autoGrant]);
    const asked = await ask(tainted.cookie, tainted.greeting, { name: 'count_clicks' });
    expect(asked.status).toBe(202);
    expect(((await asked.json()) as { toolCall: CallView }).toolCall.verdict?.reason).toContain('The conversation holds content from');

    const p = await viewOfGreeting([autoGrant], true);
    const before = clicks();
    const res = await ask(p.cookie, p.greeting, { name: 'count_clicks', arguments: {} });
    expect(res.status).toBe(200);
    const { toolCall } = (await res.json()) as { toolCall: CallView };
    expect(toolCall).toMatchObject({ tool: 'count_clicks', status: 'succeeded', askedByView: true });
    expect(JSON.stringify(toolCall.result)).toMatch(/Clicked \d+ times\./);
    expect(clicks()).toBe(before + 1);
    const [entry] = await auditOf(p.cookie, toolCall.id);
    expect(entry).toMatchObject({ outcome: 'succeeded', verdict: { kind: 'auto' }, askedBy: { by: 'view', toolCallId: p.greeting } });
    await modelSawNothing(p.cookie, p.conversationId, 'Clicked');
  });

  it('waits for the person otherwise: deny keeps it from running, allow once runs it once', async () => {
    const p = await viewOfGreeting();
    const before = clicks();
    const first = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
    expect(first.status).toBe(202);
    const pending = ((await first.json()) as { toolCall: CallView }).toolCall;
    expect(pending).toMatchObject({ status: 'pending_approval', askedByView: true, result: null });
    // Durable: the view's waiting calls are listed for the card, and the model's turn is not held.
    const listed = (await (await routes.calls.GET(req('GET', p.cookie), at(p.greeting))).json()).toolCalls as CallView[];
    expect(listed.map((c) => [c.id, c.status])).toEqual([[pending.id, 'pending_approval']]);

    const denied = await routes.decision.POST(req('POST', p.cookie, { decision: 'deny', argsHash: pending.argsHash }), at(pending.id));
    expect(denied.status).toBe(200);
    expect(((await denied.json()) as { toolCall: CallView }).toolCall).toMatchObject({ status: 'denied' });
    expect(clicks()).toBe(before);
    expect(await auditOf(p.cookie, pending.id)).toMatchObject([{ outcome: 'denied', askedBy: { by: 'view' } }]);

    const second = ((await (await ask(p.cookie, p.greeting, { name: 'count_clicks' })).json()) as { toolCall: CallView }).toolCall;
    expect(second.status).toBe('pending_approval');
    const allow = () => routes.decision.POST(req('POST', p.cookie, { decision: 'allow_once', argsHash: second.argsHash }), at(second.id));
    const allowed = await allow();
    expect(allowed.status).toBe(200);
    const ran = ((await allowed.json()) as { toolCall: CallView }).toolCall;
    expect(ran).toMatchObject({ status: 'succeeded', askedByView: true });
    expect(JSON.stringify(ran.result)).toMatch(/Clicked \d+ times\./);
    // The same decision again is harmless: it runs nothing more.
    expect((await allow()).status).toBe(200);
    expect(clicks()).toBe(before + 1);
    expect(await auditOf(p.cookie, second.id)).toMatchObject([
      { outcome: 'succeeded', verdict: { kind: 'allowed', decision: 'allow_once' }, askedBy: { by: 'view', toolCallId: p.greeting } },
    ]);
    await modelSawNothing(p.cookie, p.conversationId, 'Clicked');
  });

  it("a view still open when its server's views are switched off asks nothing more, and what it asked before does not run", async () => {
    const p = await viewOfGreeting();
    const before = clicks();
    const waiting = ((await (await ask(p.cookie, p.greeting, { name: 'count_clicks' })).json()) as { toolCall: CallView }).toolCall;
    expect(waiting.status).toBe('pending_approval');
    const off = await routes.server.PATCH(req('PATCH', p.cookie, { showViews: false }), at(p.serverId));
    expect(off.status, await off.clone().text()).toBe(200);

    const refused = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.message).toBe(
      'Interactive views of Apps are switched off (Servers page): its views call no tools.',
    );
    const allowed = await routes.decision.POST(
      req('POST', p.cookie, { decision: 'allow_once', argsHash: waiting.argsHash }),
      at(waiting.id),
    );
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { toolCall: CallView }).toolCall).toMatchObject({
      status: 'rejected',
      verdict: { reason: 'Interactive views of Apps are switched off (Servers page): its views call no tools.' },
    });
    expect(clicks()).toBe(before);
  });

  it("a call that ends while its server's views are off says so on its live event: the card shows the note, not a frame", async () => {
    const p = await viewOfGreeting();
    expect((await routes.server.PATCH(req('PATCH', p.cookie, { showViews: false }), at(p.serverId))).status).toBe(200);
    const sent = await routes.messages.POST(
      req('POST', p.cookie, { text: 'call apps__show_greeting {"name": "Bo"}' }),
      at(p.conversationId),
    );
    expect(sent.status).toBe(202);
    let run = await settledRun(p.conversationId);
    if (run.status === 'awaiting_approval') {
      const calls = (await (await routes.conversation.GET(req('GET', p.cookie), at(p.conversationId))).json()).toolCalls as CallView[];
      const waiting = calls.find((c) => c.status === 'pending_approval')!;
      const decided = await routes.decision.POST(
        req('POST', p.cookie, { decision: 'allow_once', argsHash: waiting.argsHash }),
        at(waiting.id),
      );
      expect(decided.status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      run = await settledRun(p.conversationId);
    }
    expect(run.status).toBe('completed');
    const ended = (await listEventsAfter(h.db, p.conversationId, 0, 10_000)).filter((e) => e.type === 'tool_call.completed');
    const live = ended.map((e) => (e.data as { toolCall: { tool: string; hasView: boolean; viewsOff: boolean } }).toolCall);
    expect(live.map((c) => [c.tool, c.hasView, c.viewsOff])).toEqual([
      ['show_greeting', true, false],
      ['show_greeting', true, true],
    ]);
  });

  it("ends a view's call `errored` (audited) when running it throws, on the automatic and on the decided path", async () => {
    const { getRuntime } = await import('@/lib/server/runtime');
    const host = (await getRuntime()).engine.tools!;
    const silence = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      // Automatic: the gateway throws while the call is `executing`.
      const auto = await viewOfGreeting([{ scope: 'tool:$/count_clicks', enabled: true, autoApprove: true }], true);
      const broken = vi.spyOn(host.gateway, 'callTool').mockRejectedValueOnce(new Error('socket hang up at 10.0.0.7'));
      const res = await ask(auto.cookie, auto.greeting, { name: 'count_clicks' });
      broken.mockRestore();
      expect(res.status).toBe(200);
      const { toolCall } = (await res.json()) as { toolCall: CallView };
      expect(toolCall).toMatchObject({ status: 'errored', askedByView: true });
      expect(JSON.stringify(toolCall.result)).toContain('count_clicks failed in Switchboard before it could finish');
      // Our internals stay in the log, not in what the server's view is told.
      expect(JSON.stringify(toolCall.result)).not.toContain('10.0.0.7');
      expect(await auditOf(auto.cookie, toolCall.id)).toMatchObject([{ outcome: 'errored', askedBy: { by: 'view' } }]);

      // Decided: approved, then the server list throws before the call starts.
      const p = await viewOfGreeting();
      const pending = ((await (await ask(p.cookie, p.greeting, { name: 'count_clicks' })).json()) as { toolCall: CallView }).toolCall;
      const before = clicks();
      const lost = vi.spyOn(host, 'serversFor').mockRejectedValueOnce(new Error('connection terminated'));
      const decided = await routes.decision.POST(
        req('POST', p.cookie, { decision: 'allow_once', argsHash: pending.argsHash }),
        at(pending.id),
      );
      lost.mockRestore();
      expect(decided.status).toBe(200);
      expect(((await decided.json()) as { toolCall: CallView }).toolCall).toMatchObject({ status: 'errored' });
      expect(clicks()).toBe(before);
      const listed = (await (await routes.calls.GET(req('GET', p.cookie), at(p.greeting))).json()).toolCalls as CallView[];
      expect(listed.map((c) => c.status)).toEqual(['errored']);
      expect(await auditOf(p.cookie, pending.id)).toMatchObject([{ outcome: 'errored', askedBy: { by: 'view' } }]);
    } finally {
      silence.mockRestore();
    }
  });

  it("a view's call whose server needs a sign-in ends with the server, the reason and the scopes for the card's Connect", async () => {
    const { getRuntime } = await import('@/lib/server/runtime');
    const host = (await getRuntime()).engine.tools!;
    const p = await viewOfGreeting([{ scope: 'tool:$/count_clicks', enabled: true, autoApprove: true }], true);
    const before = clicks();
    const gate = vi.spyOn(host.gateway, 'callTool').mockResolvedValueOnce({
      kind: 'needs_sign_in',
      serverId: p.serverId,
      serverName: 'Apps',
      scopes: ['clicks:write'],
      reason: 'expired',
    });
    const res = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
    gate.mockRestore();
    expect(res.status).toBe(200);
    const { toolCall } = (await res.json()) as { toolCall: CallView & { signIn: unknown } };
    // What the card's SignInCard needs (as for a model's call waiting to sign in), and words for the view.
    expect(toolCall).toMatchObject({
      status: 'errored',
      askedByView: true,
      signIn: { serverId: p.serverId, serverName: 'Apps', scopes: ['clicks:write'], reason: 'expired' },
    });
    expect(JSON.stringify(toolCall.result)).toContain('Apps needs you to sign in first: connect it on the card under the view');
    expect(clicks()).toBe(before);
    expect(await auditOf(p.cookie, toolCall.id)).toMatchObject([{ outcome: 'errored', askedBy: { by: 'view' } }]);
    // Listed again after a reload with it, so a reopened card can still offer Connect.
    const listed = (await (await routes.calls.GET(req('GET', p.cookie), at(p.greeting))).json()).toolCalls as { signIn: unknown }[];
    expect(listed[0]!.signIn).toMatchObject({ serverId: p.serverId, reason: 'expired' });
  });

  it("caps a view's waiting calls and its pace (429 saying which limit), and the conversation's views together", async () => {
    const p = await viewOfGreeting();
    const asked: CallView[] = [];
    for (let i = 0; i < VIEW_CALL_LIMITS.pendingPerView; i++) {
      const res = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
      expect(res.status).toBe(202);
      asked.push(((await res.json()) as { toolCall: CallView }).toolCall);
    }
    // A hostile view cannot pile up approval cards: one more waits for nothing, and none is stored.
    const full = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
    expect(full.status).toBe(429);
    expect((await full.json()).error).toEqual({
      code: 'rate_limited:view_call',
      message: 'This interactive view already has 3 calls waiting for your decision (at most 3). Decide those first.',
    });
    const listed = (await (await routes.calls.GET(req('GET', p.cookie), at(p.greeting))).json()).toolCalls as CallView[];
    expect(listed).toHaveLength(VIEW_CALL_LIMITS.pendingPerView);
    // Deciding one makes room; past the pace (5 in 10 s) the view is refused whatever waits.
    const first = asked[0]!;
    expect((await routes.decision.POST(req('POST', p.cookie, { decision: 'deny', argsHash: first.argsHash }), at(first.id))).status).toBe(
      200,
    );
    expect((await ask(p.cookie, p.greeting, { name: 'count_clicks' })).status).toBe(202);
    const fast = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
    expect(fast.status).toBe(429);
    expect((await fast.json()).error.message).toBe(
      'This interactive view asked for too many tool calls: at most 5 in 10 seconds. Wait a few seconds and try again.',
    );

    // All the views of one conversation share a bucket too (small limits here, the same counting).
    const small = { ...VIEW_CALL_LIMITS, perView: 10, perConversation: 2 };
    const ids = (viewOf: string) => ({ conversationId: p.conversationId + '-own', viewOf });
    expect(await viewCallRateRefusal(h.db, ids('a'), small)).toBeNull();
    expect(await viewCallRateRefusal(h.db, ids('b'), small)).toBeNull();
    expect(await viewCallRateRefusal(h.db, ids('c'), small)).toBe(
      'The interactive views of this conversation asked for too many tool calls: at most 2 in 10 seconds together. ' +
        'Wait a few seconds and try again.',
    );
  });

  it("tells every open page of a view's call: its events are in the log, and the stream stays live until it ends", async () => {
    const p = await viewOfGreeting();
    const lastSeq = async () => (await listEventsAfter(h.db, p.conversationId, 0, 10_000)).at(-1)?.seq ?? 0;
    const follow = async (after: number) =>
      routes.events.GET(req('GET', p.cookie, undefined, `http://localhost/api/x?after=${after}`), at(p.conversationId));
    const before = await lastSeq();
    // The turn is over and no view's call waits: nothing to follow.
    expect((await follow(before)).status).toBe(204);

    const pending = ((await (await ask(p.cookie, p.greeting, { name: 'count_clicks' })).json()) as { toolCall: CallView }).toolCall;
    // Another tab follows: the waiting call is replayed, and the stream stays open for what comes next.
    const res = await follow(before);
    expect(res.status).toBe(200);
    const stream = sseReader(res.body!);
    const callEvents = (frames: Frame[]) =>
      frames
        .filter((f) => f.event.startsWith('tool_call.'))
        .map((f) => [f.event, (f.data.toolCall as CallView & { viewOf: string }).status, (f.data.toolCall as { viewOf: string }).viewOf]);
    const first = await stream.rest(700);
    expect(first.ended).toBe(false);
    expect(callEvents(first.frames)).toEqual([['tool_call.approval_requested', 'pending_approval', p.greeting]]);

    // This tab decides; the other one hears the decision and the end, then its stream closes.
    const allowed = await routes.decision.POST(
      req('POST', p.cookie, { decision: 'allow_once', argsHash: pending.argsHash }),
      at(pending.id),
    );
    expect(allowed.status).toBe(200);
    const rest = await stream.rest(3000);
    expect(callEvents(rest.frames)).toEqual([
      ['tool_call.decided', 'approved', p.greeting],
      ['tool_call.completed', 'succeeded', p.greeting],
    ]);
    expect(rest.ended).toBe(true);
    // A denial and a refusal are told as well.
    const second = ((await (await ask(p.cookie, p.greeting, { name: 'count_clicks' })).json()) as { toolCall: CallView }).toolCall;
    await routes.decision.POST(req('POST', p.cookie, { decision: 'deny', argsHash: second.argsHash }), at(second.id));
    const told = (await listEventsAfter(h.db, p.conversationId, 0, 10_000)).filter((e) => e.seq > before);
    expect(told.map((e) => e.type)).toEqual([
      'tool_call.approval_requested',
      'tool_call.decided',
      'tool_call.completed',
      'tool_call.approval_requested',
      'tool_call.decided',
    ]);
    await modelSawNothing(p.cookie, p.conversationId, 'Clicked');
  });

  it('"allow for this session" on a view\'s call grants the session that decided it, not the one that started the turn', async () => {
    // A trusted server: an untrusted one's unannotated tool asks every time, so no session grant could take effect.
    const p = await viewOfGreeting([], true);
    const phone = await sessionCookie(h.db, p.userId);
    // Switched on from the phone as well: a switch-on lasts the session that made it.
    const on = { scope: `server:${p.serverId}/*`, enabled: true };
    expect((await routes.grants.PUT(req('PUT', phone.cookie, on), at(p.conversationId))).status).toBe(200);
    const pending = ((await (await ask(phone.cookie, p.greeting, { name: 'count_clicks' })).json()) as { toolCall: CallView }).toolCall;
    expect(pending.status).toBe('pending_approval');
    const decided = await routes.decision.POST(
      req('POST', phone.cookie, { decision: 'allow_session', argsHash: pending.argsHash }),
      at(pending.id),
    );
    expect(decided.status, await decided.clone().text()).toBe(200);
    // The next click from the same phone runs at once; from the laptop that started the turn it still asks.
    expect((await ask(phone.cookie, p.greeting, { name: 'count_clicks' })).status).toBe(200);
    expect((await ask(p.cookie, p.greeting, { name: 'count_clicks' })).status).toBe(202);
  });

  it('refuses a tool of another server, arguments the schema refuses (naming the field), and another user (404)', async () => {
    const p = await viewOfGreeting();
    // The notes server's "search" is one of this person's tools, but not of the view's server.
    const other = await ask(p.cookie, p.greeting, { name: 'search', arguments: { query: 'x' } });
    expect(other.status).toBe(400);
    expect((await other.json()).error).toMatchObject({
      field: 'name',
      message: 'name: "search" is not a tool of Apps; an interactive view may call only the tools of its own server.',
    });
    const bad = await ask(p.cookie, p.greeting, { name: 'show_greeting', arguments: { name: 5 } });
    expect(bad.status).toBe(400);
    const error = (await bad.json()).error as { field: string; message: string };
    expect(error.field).toBe('arguments');
    expect(error.message).toMatch(/^arguments: .*name/);
    const shape = await ask(p.cookie, p.greeting, { name: 'count_clicks', arguments: [1] });
    expect(shape.status).toBe(400);
    expect((await shape.json()).error.field).toBe('arguments');

    const stranger = await viewOfGreeting();
    const res = await ask(stranger.cookie, p.greeting, { name: 'count_clicks' });
    expect(res.status).toBe(404);
    expect((await routes.calls.GET(req('GET', stranger.cookie), at(p.greeting))).status).toBe(404);
    // A call without a view cannot be a view's either.
    expect((await ask(p.cookie, '00000000-0000-4000-8000-000000000000', { name: 'count_clicks' })).status).toBe(404);

    // A call the person denied has a result (ours), but its view never loads, so it cannot call tools with the refused arguments.
    await h.db.update(toolCalls).set({ status: 'denied' }).where(eq(toolCalls.id, p.greeting));
    const before = clicks();
    const denied = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
    expect(denied.status).toBe(409);
    expect((await denied.json()).error.message).toBe('The view can call tools only once its own call has run (this one is denied).');
    expect(clicks()).toBe(before);
    const view = await (await routes.conversation.GET(req('GET', p.cookie), at(p.conversationId))).json();
    expect(view.toolCalls[0]).toMatchObject({ status: 'denied', hasView: false });
  });

  it('rejects (and audits) a call the person did not switch on, without running it', async () => {
    const p = await viewOfGreeting([{ scope: 'tool:$/count_clicks', enabled: false }]);
    const before = clicks();
    const res = await ask(p.cookie, p.greeting, { name: 'count_clicks' });
    expect(res.status).toBe(200);
    const { toolCall } = (await res.json()) as { toolCall: CallView };
    expect(toolCall.status).toBe('rejected');
    expect(JSON.stringify(toolCall.result)).toContain('count_clicks was not run');
    expect(clicks()).toBe(before);
    expect(await auditOf(p.cookie, toolCall.id)).toMatchObject([{ outcome: 'rejected', askedBy: { by: 'view' } }]);
  });

  it('keeps what the view says for the model’s context with its call (owner only, text only), and sends nothing by itself', async () => {
    const p = await viewOfGreeting();
    const put = (cookie: string, id: string, body: unknown) => routes.context.PUT(req('PUT', cookie, body), at(id));
    const first = await put(p.cookie, p.greeting, { content: [{ type: 'text', text: 'Ada is on screen.' }] });
    expect(first.status).toBe(200);
    const res = await put(p.cookie, p.greeting, { content: [{ type: 'text', text: 'Ada clicked.' }], structuredContent: { clicks: 1 } });
    // Each update replaces the last, as the spec says.
    expect(((await res.json()) as { toolCall: { viewContext: unknown } }).toolCall.viewContext).toMatchObject({
      text: 'Ada clicked.',
      structured: { clicks: 1 },
    });
    const view = await (await routes.conversation.GET(req('GET', p.cookie), at(p.conversationId))).json();
    expect(view.toolCalls[0].viewContext).toMatchObject({ text: 'Ada clicked.' });
    expect(JSON.stringify(view.messages)).not.toContain('Ada clicked.');

    const image = await put(p.cookie, p.greeting, { content: [{ type: 'image', data: 'x', mimeType: 'image/png' }] });
    expect(image.status).toBe(400);
    expect((await image.json()).error).toMatchObject({
      field: 'content',
      message: 'content: a "image" block is not taken; only text blocks are.',
    });
    const long = await put(p.cookie, p.greeting, { content: [{ type: 'text', text: 'x'.repeat(16_001) }] });
    expect(long.status).toBe(400);
    const stranger = await viewOfGreeting();
    expect((await put(stranger.cookie, p.greeting, { content: [] })).status).toBe(404);
  });
});
