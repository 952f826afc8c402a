import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser } from '@/db/queries/users';
import { processSingleton } from '@/lib/process-singleton';
import { openTestDb } from '@/test/db';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { sessionCookie } from '@/test/route-session';

/**
 * The /api/servers routes as Next.js calls them: a Request in, a Response out, through the real
 * runtime (session cookie, same-origin check, error mapping), on a test database.
 */

const ORIGIN = 'http://localhost';
const SECRET = 'route-header-secret-8812';

describe('/api/servers routes', () => {
  let h: DbHandle;
  let fixture: FixtureServer;
  let routes: {
    list: typeof import('./route');
    one: typeof import('./[id]/route');
    test: typeof import('./[id]/test/route');
    refresh: typeof import('./[id]/refresh/route');
    enable: typeof import('./[id]/enable/route');
    imports: typeof import('./import/route');
  };
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    vi.stubEnv('SWITCHBOARD_DATA_DIR', path.join(await mkdtemp(path.join(os.tmpdir(), 'sb-routes-')), 'data'));
    vi.stubEnv('SECRETS_KEY', randomBytes(32).toString('base64'));
    vi.stubEnv('MCP_ALLOW_LOOPBACK', 'true');
    vi.stubEnv('AUTH_SECRET', randomBytes(32).toString('base64url'));
    vi.stubEnv('APP_URL', '');
    vi.stubEnv('AUTH_URL', '');
    h = await openTestDb('pglite');
    // The runtime opens this database instead of one under the data folder.
    processSingleton('db', () => ({ opening: Promise.resolve(h) }));
    fixture = await startFixtureServer({ requireHeader: { name: 'X-Api-Key', value: SECRET } });
    routes = {
      list: await import('./route'),
      one: await import('./[id]/route'),
      test: await import('./[id]/test/route'),
      refresh: await import('./[id]/refresh/route'),
      enable: await import('./[id]/enable/route'),
      imports: await import('./import/route'),
    };
    alice = await signedIn('alice');
    bob = await signedIn('bob');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await fixture?.close();
    await h?.close();
  });

  async function signedIn(name: string): Promise<string> {
    const user = (await createUser(h.db, { email: `${name}-${Math.random().toString(36).slice(2)}@example.test` }))!;
    return (await sessionCookie(h.db, user.id)).cookie;
  }

  function req(method: string, pathname: string, opts: { cookie?: string; body?: unknown; origin?: string | null } = {}) {
    const headers: Record<string, string> = {};
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.origin !== null) headers.origin = opts.origin ?? ORIGIN;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    return new Request(`${ORIGIN}${pathname}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  }
  const none = { params: Promise.resolve({}) } as { params: Promise<Record<string, never>> };
  const at = (id: string) => ({ params: Promise.resolve({ id }) });

  it('needs a session, and a same-origin request for writes', async () => {
    expect((await routes.list.GET(req('GET', '/api/servers'), none)).status).toBe(401);
    const noOrigin = await routes.list.POST(req('POST', '/api/servers', { cookie: alice, body: {}, origin: null }), none);
    expect(noOrigin.status).toBe(403);
    const foreign = await routes.list.POST(req('POST', '/api/servers', { cookie: alice, body: {}, origin: 'https://evil.example' }), none);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'forbidden:origin' } });
  });

  it('answers bad input with 400 naming the field', async () => {
    const res = await routes.list.POST(
      req('POST', '/api/servers', { cookie: alice, body: { name: 'X', url: 'ftp://x.example.test' } }),
      none,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'bad_request:server', message: expect.stringMatching(/scheme "ftp" is not allowed/), field: 'url' },
    });
    const headers = await routes.list.POST(
      req('POST', '/api/servers', { cookie: alice, body: { name: 'X', url: fixture.url, headers: { 'Content-Length': '1' } } }),
      none,
    );
    expect(await headers.json()).toMatchObject({ error: { field: 'headers.Content-Length' } });
    const enable = await routes.enable.POST(
      req('POST', '/api/servers/x/enable', { cookie: alice, body: { tools: { echo: 'not-a-fingerprint' } } }),
      at('00000000-0000-4000-8000-000000000000'),
    );
    expect(enable.status).toBe(400);
    expect((await routes.one.PATCH(req('PATCH', '/api/servers/nope', { cookie: alice, body: {} }), at('nope'))).status).toBe(404);
  });

  it('adds (201, tested at once), lists, tests, refreshes, enables, edits and deletes; header values never in a response', async () => {
    const created = await routes.list.POST(
      req('POST', '/api/servers', { cookie: alice, body: { name: 'Fixture', url: fixture.url, headers: { 'X-Api-Key': SECRET } } }),
      none,
    );
    expect(created.status).toBe(201);
    const createdText = await created.text();
    expect(createdText).not.toContain(SECRET);
    const { server } = JSON.parse(createdText);
    expect(server).toMatchObject({ namespace: 'fixture', status: 'connected', headerNames: ['X-Api-Key'], enabled: false, builtin: false });
    expect(server.tools.length).toBeGreaterThan(5);

    const list = await routes.list.GET(req('GET', '/api/servers', { cookie: alice }), none);
    const listText = await list.text();
    expect(listText).not.toContain(SECRET);
    const body = JSON.parse(listText);
    expect(body.servers.map((s: { id: string }) => s.id)).toEqual([server.id]);
    expect(body.builtin.map((s: { namespace: string; builtin: boolean }) => [s.namespace, s.builtin])).toEqual([
      ['notes', true],
      ['sandbox', true],
    ]);

    for (const route of [routes.test, routes.refresh]) {
      const res = await route.POST(req('POST', `/api/servers/${server.id}/x`, { cookie: alice }), at(server.id));
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain(SECRET);
      expect(JSON.parse(text).server.status).toBe('connected');
    }

    const echo = server.tools.find((t: { name: string }) => t.name === 'echo');
    const enabled = await routes.enable.POST(
      req('POST', `/api/servers/${server.id}/enable`, { cookie: alice, body: { tools: { echo: echo.fingerprint } } }),
      at(server.id),
    );
    expect(enabled.status).toBe(200);
    expect((await enabled.json()).server).toMatchObject({ enabled: true });

    const renamed = await routes.one.PATCH(
      req('PATCH', `/api/servers/${server.id}`, { cookie: alice, body: { name: 'Renamed', trust: 'trusted' } }),
      at(server.id),
    );
    expect((await renamed.json()).server).toMatchObject({
      name: 'Renamed',
      trust: 'trusted',
      trustContent: false,
      headerNames: ['X-Api-Key'],
    });
    // Trusting its content is a separate choice, a plain boolean.
    const vouched = await routes.one.PATCH(
      req('PATCH', `/api/servers/${server.id}`, { cookie: alice, body: { trustContent: true } }),
      at(server.id),
    );
    expect((await vouched.json()).server).toMatchObject({ trust: 'trusted', trustContent: true });
    const refused = await routes.one.PATCH(
      req('PATCH', `/api/servers/${server.id}`, { cookie: alice, body: { trustContent: 'yes' } }),
      at(server.id),
    );
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({
      field: 'trustContent',
      message: expect.stringMatching(/true or false \(got "yes"\)/),
    });

    // Bob cannot see, change or remove it.
    expect((await routes.one.PATCH(req('PATCH', '/', { cookie: bob, body: { name: 'Mine' } }), at(server.id))).status).toBe(404);
    expect((await routes.test.POST(req('POST', '/', { cookie: bob }), at(server.id))).status).toBe(404);
    expect((await routes.one.DELETE(req('DELETE', '/', { cookie: bob }), at(server.id))).status).toBe(404);
    expect((await (await routes.list.GET(req('GET', '/api/servers', { cookie: bob }), none)).json()).servers).toEqual([]);

    expect((await routes.one.DELETE(req('DELETE', '/', { cookie: alice }), at(server.id))).status).toBe(204);
    expect((await (await routes.list.GET(req('GET', '/api/servers', { cookie: alice }), none)).json()).servers).toEqual([]);
  });

  it('imports a configuration', async () => {
    const res = await routes.imports.POST(
      req('POST', '/api/servers/import', {
        cookie: alice,
        body: {
          servers: {
            one: { type: 'http', url: fixture.url, headers: { 'X-Api-Key': '${input:key}' } },
            two: { type: 'http', url: fixture.url, headers: { 'X-Api-Key': SECRET } },
            local: { type: 'stdio', command: 'node' },
          },
        },
      }),
      none,
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    const out = JSON.parse(text);
    expect(out.added.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['one', 'needs_sign_in'],
      ['two', 'connected'],
    ]);
    expect(out.notUsable).toEqual([{ name: 'local', reason: expect.stringMatching(/local program/) }]);
    expect(out.problems).toEqual([{ name: 'one', field: 'headers.X-Api-Key', message: expect.stringMatching(/never expands/) }]);
    const bad = await routes.imports.POST(req('POST', '/api/servers/import', { cookie: alice, body: [1, 2] }), none);
    expect(bad.status).toBe(400);
  });
});
