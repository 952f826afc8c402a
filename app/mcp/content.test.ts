import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { markAccessTokenTainted } from '@/db/queries/access-tokens';
import { createNote } from '@/db/queries/notes';
import { addMembership, insertOrg, setOrgPolicy } from '@/db/queries/orgs';
import { accessTokens } from '@/db/schema';
import { DEFAULT_ORG_POLICY } from '@/db/stored-json';
import { taintOf } from '@/lib/agent/taint';
import type { RawTool } from '@/lib/mcp/catalog';
import { startConformanceUpstream, type ConformanceUpstream } from '@/test/fixtures/conformance-upstream';
import { connectWithToken, serveMcpRoutes, type McpEndpointServer } from '@/test/fixtures/mcp-endpoint';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { addReviewedServer, listUpstreamTools } from '@/test/mcp-upstream';
import { openRouteRuntime } from '@/test/route-runtime';
import { signedInPerson } from '@/test/route-session';

/**
 * What else than tools an MCP client reaches through `/mcp` (issue 25): the resources, prompts and
 * completions of the servers its profile exposes (and of no other), the servers' progress on a
 * call, and — when the person asks for it — the servers' own names while nothing clashes. Real
 * route handlers on 127.0.0.1, the official client SDK, real upstream MCP servers on loopback.
 * No SQL of its own (the taint mark is the tools' one), so PGlite only, as the other /mcp suites.
 */
describe('/mcp: resources, prompts, progress and own names', () => {
  let h: DbHandle;
  let served: McpEndpointServer;
  let alpha: ConformanceUpstream;
  let gamma: ConformanceUpstream;
  let beta: FixtureServer;
  let tokens: typeof import('../api/account/tokens/route');
  let oneToken: typeof import('../api/account/tokens/[id]/route');
  const catalogs = new Map<string, RawTool[]>();

  beforeAll(async () => {
    h = await openRouteRuntime('mcp-content', { MCP_ALLOW_LOOPBACK: 'true' });
    [alpha, gamma, beta] = await Promise.all([startConformanceUpstream(), startConformanceUpstream(), startFixtureServer()]);
    for (const url of [alpha.url, gamma.url, beta.url]) catalogs.set(url, await listUpstreamTools(url));
    const mcp = await import('./route');
    const metadata = await import('../.well-known/oauth-protected-resource/mcp/route');
    tokens = await import('../api/account/tokens/route');
    oneToken = await import('../api/account/tokens/[id]/route');
    served = await serveMcpRoutes({ mcp, metadata: metadata.GET });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    await Promise.all([alpha?.close(), gamma?.close(), beta?.close()]);
    vi.unstubAllEnvs();
    await h?.close();
  });

  const person = () => signedInPerson(h.db);
  /** A server the person added under `namespace`, trusted (its annotations), its content not (the default), every tool reviewed. */
  async function addServer(userId: string, namespace: string, url: string) {
    await addReviewedServer(h.db, userId, { name: `Server ${namespace}`, namespace, url, trust: 'trusted', tools: catalogs.get(url)! });
  }
  const json = (method: string, cookie: string, body: unknown, path: string) =>
    new Request(`http://localhost${path}`, {
      method,
      headers: { origin: 'http://localhost', 'content-type': 'application/json', cookie },
      body: JSON.stringify(body),
    });
  async function createToken(cookie: string, tools: string[]): Promise<{ id: string; token: string }> {
    const res = await tokens.POST(json('POST', cookie, { name: 'agent', tools }, '/api/account/tokens'), { params: Promise.resolve({}) });
    expect(res.status).toBe(201);
    return res.json();
  }
  async function patchToken(cookie: string, id: string, body: unknown) {
    const res = await oneToken.PATCH(json('PATCH', cookie, body, `/api/account/tokens/${id}`), { params: Promise.resolve({ id }) });
    expect(res.status).toBe(200);
  }
  const toolNames = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();

  it("lists, reads and renders only the exposed servers' resources and prompts, relays progress, and taints the client", async () => {
    const ada = await person();
    await addServer(ada.userId, 'alpha', alpha.url);
    await addServer(ada.userId, 'beta', beta.url);
    const made = await createToken(ada.cookie, ['alpha__test_simple_text', 'alpha__test_tool_with_progress']);
    // Exposing tools shares none of their servers' resources and prompts until the person says so.
    const closed = await connectWithToken(served.url, made.token);
    expect((await closed.listResources()).resources).toEqual([]);
    expect((await closed.listPrompts()).prompts).toEqual([]);
    await expect(closed.readResource({ uri: 'test://static-text' })).rejects.toMatchObject({ code: -32602 });
    await closed.close();
    await patchToken(ada.cookie, made.id, { content: true });

    for (const legacy of [false, true]) {
      const client = await connectWithToken(served.url, made.token, { legacy });
      expect(client.getServerCapabilities()?.resources).toBeDefined();
      expect(client.getServerCapabilities()?.prompts).toBeDefined();

      // beta has tools, prompts and resources, but none of its tools is exposed: none of its content is.
      const resources = (await client.listResources()).resources;
      expect(resources.map((r) => r.uri).sort()).toEqual(['test://static-binary', 'test://static-text']);
      expect(resources[0]!.description).toMatch(/^\[Server alpha, content not trusted\] static-/);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['test://template/{id}/data']);
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
      expect(prompts).toEqual([
        'alpha__test_prompt_with_arguments',
        'alpha__test_prompt_with_embedded_resource',
        'alpha__test_prompt_with_image',
        'alpha__test_simple_prompt',
      ]);
      const beforeRead = await client.readResource({ uri: 'fixture://docs/readme' }).catch((e: unknown) => e);
      expect(beforeRead).toBeInstanceOf(ProtocolError);
      expect(beforeRead).toMatchObject({ code: -32602, data: { uri: 'fixture://docs/readme' } });
      await expect(client.getPrompt({ name: 'beta__summarize', arguments: { topic: 'tea' } })).rejects.toThrow(/No prompt named/);

      const rendered = await client.getPrompt({ name: 'alpha__test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } });
      expect(rendered.messages[0]!.content).toEqual({ type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" });
      const read = await client.readResource({ uri: 'test://template/7/data' });
      expect(read.contents[0]).toMatchObject({ uri: 'test://template/7/data', mimeType: 'application/json' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: '7' });
      // The upstream's "not found" comes through as -32602 with the URI, in Switchboard's words.
      await expect(client.readResource({ uri: 'test://missing' })).rejects.toMatchObject({ code: -32602, data: { uri: 'test://missing' } });
      // A server's progress reaches a client that asked for it (a trusted read-only tool runs on a tainted client too).
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'alpha__test_tool_with_progress', arguments: {} },
        { onprogress: (p: { progress: number }) => progress.push(p.progress) },
      );
      expect(result.isError).toBeFalsy();
      expect(progress).toEqual([0, 50, 100]);

      await client.close();
    }

    // What a server whose content the person does not trust returned has been read by the client's model: first
    // its "not found" for beta's URI (alpha, the only server offering resources, was asked), then the prompt and the read.
    const [row] = await h.db.select({ tainted: accessTokens.tainted }).from(accessTokens).where(eq(accessTokens.id, made.id));
    expect(row!.tainted).toMatchObject({ source: 'resource', serverName: 'Server alpha' });

    // The person exposes one of beta's tools: beta's resources and prompts are there at the next request.
    await patchToken(ada.cookie, made.id, { tools: ['alpha__test_simple_text', 'beta__echo'] });
    const client = await connectWithToken(served.url, made.token);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain('fixture://docs/readme');
    const readme = await client.readResource({ uri: 'fixture://docs/readme' });
    expect((readme.contents[0] as { text: string }).text).toMatch(/tea is served at four/);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('beta__summarize');
    await client.close();
  });

  it("keeps the person's notes from a client that exposes a notes tool without sharing content, or that is tainted", async () => {
    const eve = await person();
    const note = await createNote(h.db, eve.userId, { title: 'Bank', body: 'the PIN is 4321' });
    const made = await createToken(eve.cookie, ['notes__create']);
    const client = await connectWithToken(served.url, made.token);
    expect((await client.listResources()).resources).toEqual([]);
    await expect(client.readResource({ uri: `notes://note/${note.id}` })).rejects.toMatchObject({ code: -32602 });

    await patchToken(eve.cookie, made.id, { content: true });
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([`notes://note/${note.id}`]);
    // Tainted, the client's model may be steered: the notes are neither listed nor read.
    await markAccessTokenTainted(h.db, made.id, taintOf('result', { serverId: 'x', serverName: 'Web' }));
    expect((await client.listResources()).resources).toEqual([]);
    await expect(client.readResource({ uri: `notes://note/${note.id}` })).rejects.toThrow(/holds the person's private data/);
    await client.close();
  });

  it("taints the client with an untrusted server's error before answering, in Switchboard's words and codes", async () => {
    const fay = await person();
    await addServer(fay.userId, 'alpha', alpha.url);
    const made = await createToken(fay.cookie, ['alpha__test_simple_text']);
    await patchToken(fay.cookie, made.id, { content: true });
    const client = await connectWithToken(served.url, made.token);
    const missing = (await client.readResource({ uri: 'test://missing' }).catch((e: unknown) => e)) as ProtocolError;
    expect(missing).toMatchObject({ code: -32602, data: { uri: 'test://missing' } });
    expect(missing.message).toMatch(/Server alpha refused to read test:\/\/missing/);
    expect(missing.message).not.toMatch(/Resource not found/);
    const [row] = await h.db.select({ tainted: accessTokens.tainted }).from(accessTokens).where(eq(accessTokens.id, made.id));
    expect(row!.tainted).toMatchObject({ source: 'resource', serverName: 'Server alpha' });
    await client.close();
  });

  it("lists an untrusted server's content by its identifiers only, and taints the client with its completions", async () => {
    const gus = await person();
    await addServer(gus.userId, 'alpha', alpha.url);
    const made = await createToken(gus.cookie, ['alpha__test_simple_text']);
    await patchToken(gus.cookie, made.id, { content: true });
    const client = await connectWithToken(served.url, made.token);
    const listed = JSON.stringify([
      (await client.listResources()).resources,
      (await client.listResourceTemplates()).resourceTemplates,
      (await client.listPrompts()).prompts,
    ]);
    expect(listed).toContain('test://template/{id}/data');
    expect(listed).toContain('content not trusted');
    // The server's own words (its descriptions, the arguments' "First test argument") stay out.
    expect(listed).not.toMatch(/A static text resource|Data for an id|A prompt with two arguments|First test argument/);
    const tainted = async () =>
      (await h.db.select({ t: accessTokens.tainted }).from(accessTokens).where(eq(accessTokens.id, made.id)))[0]!.t;
    expect(await tainted()).toBeNull();
    const completed = await client.complete({
      ref: { type: 'ref/prompt', name: 'alpha__test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'pa' },
    });
    expect(completed.completion.values).toEqual(['paris', 'park', 'party']);
    expect(await tainted()).toMatchObject({ source: 'prompt', serverName: 'Server alpha' });
    await client.close();
  });

  it('passes nothing on when the taint mark cannot be written (a closed database)', async () => {
    const { getRuntime } = await import('@/lib/server/runtime');
    const { createGatewayContent } = await import('@/lib/gateway/content');
    const { openTestDb } = await import('@/test/db');
    const rt = await getRuntime();
    const gone = await openTestDb('pglite');
    await gone.close();
    const server = {
      id: 'alpha-id',
      namespace: 'alpha',
      displayName: 'Server alpha',
      url: alpha.url,
      trust: 'trusted' as const,
      timeoutMs: 5000,
    };
    const budget = { take: async () => true };
    const content = createGatewayContent({ db: gone.db, connectDeps: rt.tools.connectDeps, budget, servers: async () => [server] });
    const principal = {
      origin: 'http://localhost',
      userId: (await person()).userId,
      plan: null,
      toolsRev: 0,
      client: { kind: 'access_token' as const, id: '00000000-0000-4000-8000-000000000000', name: 'agent' },
      profile: { v: 1 as const, tools: [], content: true },
      tainted: null,
    };
    await expect(content.readResource(principal, 'test://static-text')).rejects.toThrow(/could not record/);
  });

  it('counts reads, prompts and completions against the per-minute call limit, refusing past it before any server is asked', async () => {
    const { getRuntime } = await import('@/lib/server/runtime');
    const { createGatewayContent } = await import('@/lib/gateway/content');
    const rt = await getRuntime();
    const taken: string[] = [];
    const budget = { take: async (clientId: string) => (taken.push(clientId), false) };
    const servers = vi.fn(async () => []);
    const content = createGatewayContent({ db: rt.handle.db, connectDeps: rt.tools.connectDeps, budget, servers });
    const principal = {
      origin: 'http://localhost',
      userId: (await person()).userId,
      plan: null,
      toolsRev: 0,
      client: { kind: 'access_token' as const, id: '00000000-0000-4000-8000-000000000001', name: 'agent' },
      profile: { v: 1 as const, tools: [], content: true },
      tainted: null,
    };
    const refused = { code: -32000, message: expect.stringMatching(/calls per minute per MCP client\. Wait a minute/) };
    await expect(content.readResource(principal, 'test://static-text')).rejects.toMatchObject(refused);
    await expect(content.getPrompt(principal, 'alpha__greet', {})).rejects.toMatchObject(refused);
    await expect(
      content.complete(principal, { ref: { type: 'ref/prompt', name: 'alpha__greet' }, argument: { name: 'who', value: 'a' } }),
    ).rejects.toMatchObject(refused);
    expect(taken).toEqual(Array(3).fill(principal.client.id));
    expect(servers).not.toHaveBeenCalled();
  });

  it("uses the servers' own names when the person asks, and only while nothing clashes", async () => {
    const bo = await person();
    await addServer(bo.userId, 'alpha', alpha.url);
    await addServer(bo.userId, 'gamma', gamma.url);
    const made = await createToken(bo.cookie, ['alpha__test_simple_text', 'alpha__test_error_handling']);
    const client = await connectWithToken(served.url, made.token);
    expect(await toolNames(client)).toEqual(['alpha__test_error_handling', 'alpha__test_simple_text']);

    await patchToken(bo.cookie, made.id, { ownNames: true, content: true });
    expect(await toolNames(client)).toEqual(['test_error_handling', 'test_simple_text']);
    const result = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('test_simple_prompt');
    const listed = (await (
      await tokens.GET(new Request('http://localhost/api/account/tokens', { headers: { cookie: bo.cookie } }), {
        params: Promise.resolve({}),
      })
    ).json()) as { tokens: { id: string; ownNames: boolean }[] };
    expect(listed.tokens.find((t) => t.id === made.id)!.ownNames).toBe(true);

    // gamma's test_simple_text would meet alpha's: every name keeps its server prefix.
    await patchToken(bo.cookie, made.id, { tools: ['alpha__test_simple_text', 'alpha__test_error_handling', 'gamma__test_simple_text'] });
    expect(await toolNames(client)).toEqual(['alpha__test_error_handling', 'alpha__test_simple_text', 'gamma__test_simple_text']);
    const gone = await client.callTool({ name: 'test_simple_text', arguments: {} });
    expect(gone.isError).toBe(true);
    expect((gone.content as { text: string }[])[0]!.text).toMatch(/No tool named "test_simple_text" is exposed/);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('gamma__test_simple_prompt');
    await client.close();
  });

  it("applies the organization's tool lists to content and names a tool the same when listing and calling", async () => {
    const hal = await person();
    await addServer(hal.userId, 'alpha', alpha.url);
    await addServer(hal.userId, 'gamma', gamma.url);
    const org = await insertOrg(h.db, { name: `Org ${hal.userId.slice(0, 8)}` });
    await addMembership(h.db, org.id, hal.userId, 'member');
    const made = await createToken(hal.cookie, ['alpha__test_simple_text', 'gamma__test_simple_text']);
    await patchToken(hal.cookie, made.id, { ownNames: true, content: true });
    // Set after the token was made (a token cannot be made with a forbidden tool): the profile is read under it at each request.
    await setOrgPolicy(h.db, org.id, { ...DEFAULT_ORG_POLICY, tools: { allow: null, deny: ['gamma__test_simple_text'] } });
    const client = await connectWithToken(served.url, made.token);
    // gamma's one exposed tool is forbidden: neither it nor gamma's prompts are listed, and the tool names stay
    // prefixed, since the forbidden tool's own name would meet alpha's (a call would find it under its prefix).
    expect(await toolNames(client)).toEqual(['alpha__test_simple_text']);
    expect((await client.callTool({ name: 'alpha__test_simple_text', arguments: {} })).isError).toBeFalsy();
    // Only alpha's prompts (under their own names: none of them clashes).
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toHaveLength(4);
    await client.close();
  });

  it('refuses a URI that templates of two exposed servers match, naming them', async () => {
    const ivy = await person();
    await addServer(ivy.userId, 'alpha', alpha.url);
    await addServer(ivy.userId, 'gamma', gamma.url);
    const made = await createToken(ivy.cookie, ['alpha__test_simple_text', 'gamma__test_simple_text']);
    await patchToken(ivy.cookie, made.id, { content: true });
    const client = await connectWithToken(served.url, made.token);
    const both = (await client.readResource({ uri: 'test://template/7/data' }).catch((e: unknown) => e)) as ProtocolError;
    expect(both).toMatchObject({ code: -32602, data: { uri: 'test://template/7/data' } });
    expect(both.message).toMatch(/Server alpha, Server gamma/);
    await client.close();
  });

  it('tells a client with an open listen stream that its lists changed when the person changes its profile, no other client', async () => {
    const cy = await person();
    await addServer(cy.userId, 'alpha', alpha.url);
    const first = await createToken(cy.cookie, ['alpha__test_simple_text']);
    const second = await createToken(cy.cookie, ['alpha__test_simple_text']);
    const heard = { first: [] as string[], second: [] as string[] };
    const listening = async (token: string, into: string[]) => {
      const client = await connectWithToken(served.url, token);
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      let told = () => {};
      const toldOnce = new Promise<void>((resolve) => (told = resolve));
      for (const method of [
        'notifications/tools/list_changed',
        'notifications/prompts/list_changed',
        'notifications/resources/list_changed',
      ] as const) {
        client.setNotificationHandler(method, () => {
          into.push(method);
          if (into.length === 3) told();
        });
      }
      const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true });
      return { client, subscription, toldOnce };
    };
    const a = await listening(first.token, heard.first);
    const b = await listening(second.token, heard.second);

    await patchToken(cy.cookie, first.id, { tools: ['alpha__test_simple_text', 'alpha__test_error_handling'] });
    await a.toldOnce;
    expect(heard.first.sort()).toEqual([
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
      'notifications/tools/list_changed',
    ]);
    expect(await toolNames(a.client)).toEqual(['alpha__test_error_handling', 'alpha__test_simple_text']);
    // The second client's own change reaches it; the first one's never did (it would have come first, in order).
    await patchToken(cy.cookie, second.id, { ownNames: true });
    await b.toldOnce;
    expect(heard.second).toHaveLength(3);

    // The 2025-11-25 path has no stream to send on: it says so, and sees the change at its next request.
    const legacy = await connectWithToken(served.url, first.token, { legacy: true });
    expect(legacy.getServerCapabilities()?.tools?.listChanged).toBeFalsy();
    await Promise.all([a.subscription.close(), b.subscription.close()]);
    await Promise.all([a.client.close(), b.client.close(), legacy.close()]);
  });

  it('reaches a listen stream held by another instance (its own event bus, the same database)', async () => {
    const { getRuntime } = await import('@/lib/server/runtime');
    const { createEventBus } = await import('@/lib/agent/bus');
    const { createGatewayEndpoint } = await import('@/lib/gateway/service');
    const { requestStateKey } = await import('@/lib/gateway/elicit-approval');
    const rt = await getRuntime();
    const endpoint = createGatewayEndpoint({
      db: h.db,
      tools: rt.tools.host,
      connectDeps: rt.tools.connectDeps,
      auditKeys: rt.engine.auditKeys,
      bus: createEventBus(h),
      approvalWaitMs: 120_000,
      stateKey: requestStateKey(rt.secret),
    });
    const serve = (req: Request) => endpoint.serve(req);
    const other = await serveMcpRoutes({ mcp: { GET: serve, POST: serve, DELETE: serve }, metadata: () => new Response(null) });
    try {
      const di = await person();
      await addServer(di.userId, 'alpha', alpha.url);
      const made = await createToken(di.cookie, ['alpha__test_simple_text']);
      const client = await connectWithToken(other.url, made.token);
      const told = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      const subscription = await client.listen({ toolsListChanged: true });
      // A request after the stream opened: its statements run after the other instance's LISTEN on the one PGlite.
      expect(await toolNames(client)).toEqual(['alpha__test_simple_text']);
      // The change is made through the app's own runtime (this suite's instance), the stream is held by the other.
      await patchToken(di.cookie, made.id, { tools: ['alpha__test_simple_text', 'alpha__test_error_handling'] });
      await told;
      expect(await toolNames(client)).toEqual(['alpha__test_error_handling', 'alpha__test_simple_text']);
      await subscription.close();
      await client.close();
    } finally {
      await other.close();
      await endpoint.close();
    }
  });
});
