import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { getLatestRun } from '@/db/queries/runs';
import { createUser } from '@/db/queries/users';
import { constraintFor } from '@/lib/consent/constraints';
import type { ConversationToolsView, ToolEntry } from '@/lib/consent/tools-view';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * GET …/tools, PUT …/grants and DELETE …/grants/:grantId as Next.js calls them, through the real
 * runtime (session cookie, same-origin check, error mapping) and the app's stored grants.
 */

const ORIGIN = 'http://localhost';

describe('/api/conversations/:id/tools and …/grants', () => {
  let h: DbHandle;
  let routes: {
    tools: typeof import('../tools/route');
    grants: typeof import('./route');
    grant: typeof import('./[grantId]/route');
    messages: typeof import('../messages/route');
  };

  beforeAll(async () => {
    h = await openRouteRuntime('grants');
    routes = {
      tools: await import('../tools/route'),
      grants: await import('./route'),
      grant: await import('./[grantId]/route'),
      messages: await import('../messages/route'),
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  /** A signed-in user with one conversation: the cookie, and the conversation id. */
  async function signedIn(plan = 'pro') {
    const user = (await createUser(h.db, { email: `g-${randomBytes(6).toString('hex')}@example.test`, plan }))!;
    const { cookie, sid } = await sessionCookie(h.db, user.id);
    const conversation = await createConversation(h.db, { userId: user.id, model: 'demo' });
    return { cookie, id: conversation.id, userId: user.id, sid };
  }

  function req(method: string, opts: { cookie?: string; body?: unknown; origin?: string | null } = {}) {
    const headers: Record<string, string> = {};
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.origin !== null) headers.origin = opts.origin ?? ORIGIN;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    return new Request(`${ORIGIN}/api/x`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  }
  const at = (id: string) => ({ params: Promise.resolve({ id }) });
  const atGrant = (id: string, grantId: string) => ({ params: Promise.resolve({ id, grantId }) });

  const view = async (cookie: string, id: string): Promise<ConversationToolsView> => {
    const res = await routes.tools.GET(req('GET', { cookie }), at(id));
    expect(res.status).toBe(200);
    return res.json();
  };
  const put = (cookie: string, id: string, body: unknown, origin?: string | null) =>
    routes.grants.PUT(req('PUT', { cookie, body, origin }), at(id));
  const entry = (v: ConversationToolsView, serverId: string, name: string): ToolEntry =>
    v.servers.find((s) => s.id === serverId)!.tools.find((t) => t.name === name)!;

  it('a fresh conversation: first-party read-only tools on by default, everything else off; the offer is what the model sees', async () => {
    const alice = await signedIn();
    const v = await view(alice.cookie, alice.id);
    expect(v.plan).toEqual({ name: 'pro', enabledTools: { used: 0, max: 50 } });
    expect(v.tainted).toBeNull();
    const notes = v.servers.find((s) => s.id === 'builtin-notes')!;
    expect(notes).toMatchObject({
      name: 'Notes',
      namespace: 'notes',
      trust: 'trusted',
      builtin: true,
      scope: 'server:builtin-notes/*',
      grant: null,
    });
    expect(entry(v, 'builtin-notes', 'search')).toMatchObject({
      state: 'default_on',
      enabled: true,
      modelName: 'notes__search',
      scope: 'tool:builtin-notes/search',
      scopes: ['tool:builtin-notes/search', 'server:builtin-notes/*'],
      autoApprove: { allowed: false, reason: expect.stringMatching(/without asking already/) },
    });
    expect(entry(v, 'builtin-notes', 'create')).toMatchObject({ state: 'off', enabled: false, modelName: null, grant: null });
    expect(entry(v, 'builtin-notes', 'delete')).toMatchObject({
      hints: { annotated: true, destructive: true, readOnly: false, openWorld: false },
      autoApprove: { allowed: false, reason: expect.stringMatching(/destructive/) },
    });
    expect(v.offered.map((t) => t.name).sort()).toEqual(['notes__get', 'notes__search', 'sandbox__run_js']);
    expect(v.offered[0]).toMatchObject({ description: expect.stringContaining('[Notes]'), inputSchema: { type: 'object' } });
  });

  it('switches a tool on (a 12 h grant of this session), with auto-approve and a constraint; DELETE revokes it', async () => {
    const alice = await signedIn();
    const constraint = constraintFor({ kind: 'exact', field: 'title', value: 'Shopping' });
    const res = await put(alice.cookie, alice.id, { scope: 'tool:builtin-notes/create', enabled: true, autoApprove: true, constraint });
    expect(res.status).toBe(200);
    const v: ConversationToolsView = await res.json();
    const create = entry(v, 'builtin-notes', 'create');
    expect(create).toMatchObject({ state: 'granted', enabled: true, modelName: 'notes__create' });
    expect(create.grant).toMatchObject({ scope: 'tool:builtin-notes/create', autoApprove: true, constraint, expiresIn: '12h' });
    const hours = (Date.parse(create.grant!.expiresAt!) - Date.parse(create.grant!.createdAt)) / 3_600_000;
    expect(hours).toBe(12);
    expect(v.plan.enabledTools.used).toBe(1);
    expect(v.offered.map((t) => t.name)).toContain('notes__create');

    // A new PUT replaces the grant (here: for the session, without auto-approve).
    const again: ConversationToolsView = await (
      await put(alice.cookie, alice.id, { scope: 'tool:builtin-notes/create', enabled: true, expiresIn: 'session' })
    ).json();
    const replaced = entry(again, 'builtin-notes', 'create').grant!;
    expect(replaced).toMatchObject({ autoApprove: false, constraint: null, expiresIn: 'session', expiresAt: null });
    expect(replaced.id).not.toBe(create.grant!.id);

    const revoked = await routes.grant.DELETE(req('DELETE', { cookie: alice.cookie }), atGrant(alice.id, replaced.id));
    expect(revoked.status).toBe(200);
    const after: ConversationToolsView = await revoked.json();
    expect(entry(after, 'builtin-notes', 'create')).toMatchObject({ state: 'off', enabled: false, grant: null });
    expect(after.offered.map((t) => t.name)).not.toContain('notes__create');
  });

  it('switching off a default-on tool is stored; switching it on again undoes it', async () => {
    const alice = await signedIn();
    const off: ConversationToolsView = await (
      await put(alice.cookie, alice.id, { scope: 'tool:builtin-notes/search', enabled: false })
    ).json();
    expect(entry(off, 'builtin-notes', 'search')).toMatchObject({ state: 'switched_off', enabled: false });
    expect(off.offered.map((t) => t.name)).not.toContain('notes__search');
    expect(entry(await view(alice.cookie, alice.id), 'builtin-notes', 'search').state).toBe('switched_off');
    const on: ConversationToolsView = await (
      await put(alice.cookie, alice.id, { scope: 'tool:builtin-notes/search', enabled: true })
    ).json();
    expect(entry(on, 'builtin-notes', 'search')).toMatchObject({ state: 'default_on', enabled: true });
  });

  it('a server-wide grant turns on every tool of the server that is on the plan', async () => {
    const alice = await signedIn();
    const v: ConversationToolsView = await (await put(alice.cookie, alice.id, { scope: 'server:builtin-notes/*', enabled: true })).json();
    const notes = v.servers.find((s) => s.id === 'builtin-notes')!;
    expect(notes.grant).toMatchObject({ scope: 'server:builtin-notes/*', expiresIn: '12h' });
    expect(notes.tools.map((t) => [t.name, t.state])).toEqual([
      ['search', 'default_on'],
      ['get', 'default_on'],
      ['create', 'granted'],
      ['update', 'granted'],
      ['delete', 'granted'],
    ]);
    expect(v.plan.enabledTools.used).toBe(3); // tools on by default are not counted
  });

  it('answers bad input with 400 naming the field, and refuses what would not take effect', async () => {
    const alice = await signedIn();
    const cases: Array<[unknown, string, RegExp]> = [
      [{ scope: 'notes/create', enabled: true }, 'scope', /is not a scope/],
      [{ scope: 'tool:builtin-nope/x', enabled: true }, 'scope', /no enabled server/],
      [{ scope: 'tool:builtin-notes/nope', enabled: true }, 'scope', /no usable tool named "nope"/],
      [{ scope: 'tool:builtin-notes/delete', enabled: true, autoApprove: true }, 'autoApprove', /destructive/],
      [{ scope: 'tool:builtin-notes/search', enabled: true, autoApprove: true }, 'autoApprove', /without asking already/],
      [
        { scope: 'tool:builtin-notes/create', enabled: true, constraint: { type: 'object', properties: { t: { pattern: '(?=x)' } } } },
        'constraint',
        /one of three forms/,
      ],
      [
        {
          scope: 'tool:builtin-notes/create',
          enabled: true,
          constraint: { type: 'object', properties: { t: { const: 'x' } }, required: ['t'] },
        },
        'constraint',
        /no argument "t"; its arguments are "title", "body"/,
      ],
      [
        {
          scope: 'tool:builtin-notes/create',
          enabled: true,
          constraint: { type: 'object', required: ['title'], properties: { title: { type: 'string', pattern: '^/a/\\.\\./' } } },
        },
        'constraint',
        /may not contain "\.\."/,
      ],
      [{ scope: 'server:builtin-notes/*', enabled: true, constraint: { type: 'object' } }, 'constraint', /one tool/],
      [{ scope: 'tool:builtin-notes/create', enabled: true, expiresIn: '3d' }, 'expiresIn', /1h, 12h, session/],
      [{ scope: 'tool:builtin-notes/create' }, 'enabled', /true|false/],
    ];
    for (const [body, field, message] of cases) {
      const res = await put(alice.cookie, alice.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const { error } = await res.json();
      expect(error.field, JSON.stringify(body)).toBe(field);
      expect(error.message).toMatch(message);
    }
    // Writes need the same origin.
    expect((await put(alice.cookie, alice.id, { scope: 'tool:builtin-notes/create', enabled: true }, null)).status).toBe(403);
  });

  it('the plan: a tool outside it is refused (403), and past the enabled-tools limit is a 429 naming the limit and the plan', async () => {
    const free = await signedIn('free');
    const v = await view(free.cookie, free.id);
    expect(v.plan).toEqual({ name: 'free', enabledTools: { used: 0, max: 5 } });
    expect(entry(v, 'builtin-sandbox', 'run_js')).toMatchObject({
      state: 'left_out',
      enabled: false,
      leftOut: { reason: 'over_plan', message: 'It is not included in the free plan.' },
    });
    const sandbox = await put(free.cookie, free.id, { scope: 'tool:builtin-sandbox/run_js', enabled: true });
    expect(sandbox.status).toBe(403);
    expect((await sandbox.json()).error).toMatchObject({ field: 'scope', message: expect.stringMatching(/free plan/) });

    vi.stubEnv('SWITCHBOARD_LIMITS', JSON.stringify({ enabledToolsPerConversation: 2 }));
    try {
      expect((await put(free.cookie, free.id, { scope: 'tool:builtin-notes/create', enabled: true })).status).toBe(200);
      expect((await put(free.cookie, free.id, { scope: 'tool:builtin-notes/update', enabled: true })).status).toBe(200);
      const over = await put(free.cookie, free.id, { scope: 'tool:builtin-notes/delete', enabled: true });
      expect(over.status).toBe(429);
      const { error } = await over.json();
      expect(error).toMatchObject({ code: 'rate_limited:enabledToolsPerConversation', limit: 'enabledToolsPerConversation', plan: 'free' });
      expect(error.message).toBe(
        'Limit reached on the free plan: at most 2 enabled tools per conversation. ' +
          '2 are on here: switch one off first, or move to a larger plan.',
      );
      // Changing a tool that is already on does not add one.
      expect((await put(free.cookie, free.id, { scope: 'tool:builtin-notes/create', enabled: true, autoApprove: true })).status).toBe(200);
    } finally {
      vi.stubEnv('SWITCHBOARD_LIMITS', '');
    }
  });

  it("another user's conversation or grant is not found (404), never changed", async () => {
    const alice = await signedIn();
    const bob = await signedIn();
    const v: ConversationToolsView = await (
      await put(alice.cookie, alice.id, { scope: 'tool:builtin-notes/create', enabled: true })
    ).json();
    const grantId = entry(v, 'builtin-notes', 'create').grant!.id;

    expect((await routes.tools.GET(req('GET', { cookie: bob.cookie }), at(alice.id))).status).toBe(404);
    expect((await put(bob.cookie, alice.id, { scope: 'tool:builtin-notes/update', enabled: true })).status).toBe(404);
    expect((await routes.grant.DELETE(req('DELETE', { cookie: bob.cookie }), atGrant(alice.id, grantId))).status).toBe(404);
    // Nor through Bob's own conversation.
    expect((await routes.grant.DELETE(req('DELETE', { cookie: bob.cookie }), atGrant(bob.id, grantId))).status).toBe(404);
    expect((await routes.tools.GET(req('GET', { cookie: alice.cookie }), at('not-a-uuid'))).status).toBe(404);
    expect((await routes.tools.GET(req('GET', {}), at(alice.id))).status).toBe(401);

    expect(entry(await view(alice.cookie, alice.id), 'builtin-notes', 'create')).toMatchObject({ state: 'granted' });
    expect(entry(await view(alice.cookie, alice.id), 'builtin-notes', 'update').state).toBe('off');
  });

  it("a turn started by a request runs with the grants of that request's session", async () => {
    const alice = await signedIn();
    const res = await routes.messages.POST(req('POST', { cookie: alice.cookie, body: { text: 'hello' } }), at(alice.id));
    expect(res.status).toBe(202);
    expect((await getLatestRun(h.db, alice.id))!.sessionId).toBe(alice.sid);
    // The demo model answers after the response: let it finish before the database closes.
    await vi.waitFor(async () => expect((await getLatestRun(h.db, alice.id))!.endedAt).not.toBeNull(), { timeout: 20_000 });
  });
});
