import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { searchNotes } from '@/db/queries/notes';
import { createUser, findUserById } from '@/db/queries/users';
import { auditEntries, clientApprovals } from '@/db/schema';
import type { StoredAuditClientCall } from '@/db/stored-json';
import type { ClientApprovalView } from '@/lib/gateway/approvals';
import { limitsFor } from '@/lib/limits';
import { connectWithToken, serveMcpRoutes, type McpEndpointServer } from '@/test/fixtures/mcp-endpoint';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * A call of an MCP client that needs the person's approval waits for it durably (issue 25): stored,
 * listed in the "Other clients" inbox, pushed to open tabs, and the client's request completes once
 * the person decides through the web API — on this instance or another. Real route handlers on
 * 127.0.0.1, the official client SDK, the database as the only thing instances share.
 */
describe('/mcp: calls that wait for approval', () => {
  let h: DbHandle;
  let served: McpEndpointServer;
  let tokens: typeof import('../api/account/tokens/route');
  let token: typeof import('../api/account/tokens/[id]/route');
  let inbox: typeof import('../api/client-approvals/route');
  let decision: typeof import('../api/client-approvals/[id]/decision/route');
  let events: typeof import('../api/client-approvals/events/route');
  const others: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    // Two calls in progress per client at most, so that reaching it takes two waiting calls.
    h = await openRouteRuntime('mcp-approvals', {
      MCP_ALLOW_LOOPBACK: 'true',
      SWITCHBOARD_LIMITS: JSON.stringify({ mcpConcurrentCalls: 2 }),
    });
    const mcp = await import('./route');
    const metadata = await import('../.well-known/oauth-protected-resource/mcp/route');
    tokens = await import('../api/account/tokens/route');
    token = await import('../api/account/tokens/[id]/route');
    inbox = await import('../api/client-approvals/route');
    decision = await import('../api/client-approvals/[id]/decision/route');
    events = await import('../api/client-approvals/events/route');
    served = await serveMcpRoutes({ mcp, metadata: metadata.GET });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    for (const o of others) await o.close();
    vi.unstubAllEnvs();
    await h?.close();
  });

  const none = { params: Promise.resolve({}) };
  async function personWithToken(tools: string[], name = 'Claude Code') {
    const user = (await createUser(h.db, { email: `a-${randomBytes(4).toString('hex')}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const res = await tokens.POST(
      new Request('http://localhost/api/account/tokens', {
        method: 'POST',
        headers: { origin: 'http://localhost', 'content-type': 'application/json', cookie },
        body: JSON.stringify({ name, tools }),
      }),
      none,
    );
    const made = await res.json();
    if (res.status !== 201) throw new Error(JSON.stringify(made));
    return { userId: user.id, cookie, token: made.token as string, tokenId: made.id as string };
  }
  const listInbox = async (cookie: string): Promise<ClientApprovalView[]> =>
    (await (await inbox.GET(new Request('http://localhost/api/client-approvals', { headers: { cookie } }), none)).json()).calls;
  /** The inbox once a call waits in it (the client's request is in flight meanwhile). */
  async function waitingCall(cookie: string): Promise<ClientApprovalView> {
    for (let i = 0; i < 200; i++) {
      const [call] = await listInbox(cookie);
      if (call) return call;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('no call appeared in the inbox');
  }
  const decide = (cookie: string, id: string, body: unknown) =>
    decision.POST(
      new Request(`http://localhost/api/client-approvals/${id}/decision`, {
        method: 'POST',
        headers: { origin: 'http://localhost', 'content-type': 'application/json', cookie },
        body: JSON.stringify(body),
      }),
      { params: Promise.resolve({ id }) },
    );
  const callsOf = async (userId: string) =>
    (await h.db.select().from(auditEntries).where(eq(auditEntries.userId, userId)))
      .map((e) => e.content)
      .filter((c): c is StoredAuditClientCall => c.kind === 'client_call');
  const text = (r: { content?: unknown }) => ((r.content as { type: string; text?: string }[])[0]?.text ?? '') as string;

  /** `/mcp` as another instance would serve it: its own event bus, its own wait, the same database. */
  async function anotherInstance(approvalWaitMs: number) {
    // Imported after the route runtime is set up, as the routes are.
    const { getRuntime } = await import('@/lib/server/runtime');
    const { createEventBus } = await import('@/lib/agent/bus');
    const { createGatewayEndpoint } = await import('@/lib/gateway/service');
    const rt = await getRuntime();
    const bus = createEventBus(h);
    const { requestStateKey } = await import('@/lib/gateway/elicit-approval');
    const endpoint = createGatewayEndpoint({
      db: h.db,
      tools: rt.tools.host,
      auditKeys: rt.engine.auditKeys,
      bus,
      approvalWaitMs,
      stateKey: requestStateKey(rt.secret),
    });
    const serve = (req: Request) => endpoint.serve(req);
    const server = await serveMcpRoutes({ mcp: { GET: serve, POST: serve, DELETE: serve }, metadata: () => new Response(null) });
    others.push(server, endpoint);
    return server;
  }

  it('waits for the person, who sees client, tool and exact arguments; allowed once, it runs and the client gets the result', async () => {
    const ada = await personWithToken(['notes__create']);
    const client = await connectWithToken(served.url, ada.token);
    const pending = client.callTool({ name: 'notes__create', arguments: { title: 'From a client', body: 'hi' } });

    const call = await waitingCall(ada.cookie);
    expect(call).toMatchObject({
      client: { kind: 'access_token', id: ada.tokenId, name: 'Claude Code' },
      name: 'notes__create',
      server: { id: 'builtin-notes', name: 'Notes' },
      tool: 'create',
      input: { title: 'From a client', body: 'hi' },
      reason: expect.stringMatching(/^This tool may change something/),
    });
    expect(await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).toEqual([]); // nothing ran yet

    // Bound to the arguments shown: another hash is refused, naming the field.
    const wrong = await decide(ada.cookie, call.id, { decision: 'allow_once', argsHash: '0'.repeat(64) });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toMatchObject({ field: 'argsHash' });

    const ok = await decide(ada.cookie, call.id, { decision: 'allow_once', argsHash: call.argsHash });
    expect(ok.status).toBe(200);
    const result = await pending;
    expect(result.isError).toBeFalsy();
    expect((await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).map((n) => n.title)).toEqual(['From a client']);
    expect(await listInbox(ada.cookie)).toEqual([]);

    // Once: a second decision is too late, and says why.
    const again = await decide(ada.cookie, call.id, { decision: 'allow_once', argsHash: call.argsHash });
    expect(again.status).toBe(409);
    expect((await again.json()).error.message).toBe('This call no longer waits for a decision. It was already allowed.');
    const [entry] = await callsOf(ada.userId);
    expect(entry).toMatchObject({
      client: { name: 'Claude Code' },
      name: 'notes__create',
      verdict: { kind: 'allowed' },
      outcome: 'succeeded',
      result: { isError: false },
    });
    await client.close();
  });

  it('keeps a client that asked for progress waiting past its own request timeout, with progress until the person decides', async () => {
    const ada = await personWithToken(['notes__create']);
    const client = await connectWithToken(served.url, ada.token);
    const progress: { progress: number; message?: string }[] = [];
    const started = Date.now();
    const pending = client.callTool(
      { name: 'notes__create', arguments: { title: 'Patient', body: 'x' } },
      {
        timeout: 7_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => progress.push(p),
      },
    );
    const call = await waitingCall(ada.cookie);
    while (progress.length === 0) await new Promise((r) => setTimeout(r, 100));
    expect(progress[0]!.message).toBe("Waiting for the person's approval in Switchboard");
    // Decided after the client's own 7 s: only the progress kept its request alive.
    while (Date.now() - started < 7_500) await new Promise((r) => setTimeout(r, 100));
    expect((await decide(ada.cookie, call.id, { decision: 'allow_once', argsHash: call.argsHash })).status).toBe(200);
    expect((await pending).isError).toBeFalsy();
    await client.close();
  });

  it('denied: the client gets an isError result saying so and what to do, nothing runs, the denial is audited', async () => {
    const ada = await personWithToken(['notes__create']);
    const client = await connectWithToken(served.url, ada.token, { legacy: true });
    const pending = client.callTool({ name: 'notes__create', arguments: { title: 'Nope', body: 'x' } });
    const call = await waitingCall(ada.cookie);
    // Not anyone's to decide: another person's session finds nothing.
    const bob = await personWithToken([]);
    expect((await decide(bob.cookie, call.id, { decision: 'deny', argsHash: call.argsHash })).status).toBe(404);

    expect((await decide(ada.cookie, call.id, { decision: 'deny', argsHash: call.argsHash })).status).toBe(200);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'notes__create was not run: the person denied it in Switchboard. Do not call it again unless they ask you to.',
    );
    expect(await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).toEqual([]);
    expect((await callsOf(ada.userId)).map((c) => [c.verdict.kind, c.outcome, c.timing.startedAt])).toEqual([['denied', 'denied', null]]);
    await client.close();
  });

  it('ends the wait at its deadline: the client is told nobody decided and where to decide; a late decision is refused', async () => {
    const other = await anotherInstance(800);
    const ada = await personWithToken(['notes__create']);
    const client = await connectWithToken(other.url, ada.token);
    const result = await client.callTool({ name: 'notes__create', arguments: { title: 'Late', body: 'x' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^notes__create was not run: it needs the person's approval in Switchboard \(This tool may change/);
    expect(text(result)).toContain(`and nobody decided within 1 s. Ask them to open the "Other clients" inbox at ${other.origin}/inbox`);
    const [row] = await h.db.select().from(clientApprovals).where(eq(clientApprovals.userId, ada.userId));
    expect(row!.status).toBe('timed_out');
    const late = await decide(ada.cookie, row!.id, { decision: 'allow_once', argsHash: row!.argsHash });
    expect(late.status).toBe(409);
    expect(await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).toEqual([]);
    expect((await callsOf(ada.userId)).map((c) => [c.verdict.kind, c.outcome])).toEqual([['undecided', 'timed_out']]);
    await client.close();
  });

  it('completes a request held by another instance once the person decides on this one, pushing both changes to a tab', async () => {
    const other = await anotherInstance(60_000);
    const ada = await personWithToken(['notes__create'], 'CI agent');
    const tab = new AbortController();
    const stream = await events.GET(
      new Request('http://localhost/api/client-approvals/events', { headers: { cookie: ada.cookie }, signal: tab.signal }),
      none,
    );
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let heard = '';
    const hear = async (pattern: RegExp) => {
      while (!pattern.test(heard)) heard += (await reader.read()).value ?? '';
    };
    await hear(/event: client_approvals.changed\ndata: \{"id":null/); // opened: read the list now

    const client = await connectWithToken(other.url, ada.token);
    const pending = client.callTool({ name: 'notes__create', arguments: { title: 'Across', body: 'instances' } });
    const call = await waitingCall(ada.cookie);
    await hear(new RegExp(`"id":"${call.id}","status":"pending_approval"`));
    expect((await decide(ada.cookie, call.id, { decision: 'allow_once', argsHash: call.argsHash })).status).toBe(200);
    const result = await pending;
    expect(result.isError).toBeFalsy();
    await hear(new RegExp(`"id":"${call.id}","status":"approved"`));
    expect((await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).map((n) => n.title)).toEqual(['Across']);
    expect((await callsOf(ada.userId))[0]).toMatchObject({ client: { name: 'CI agent' }, verdict: { kind: 'allowed' } });
    tab.abort();
    await reader.cancel().catch(() => {});
    await client.close();
  });

  it("counts a tab's inbox stream with the person's other event streams: past the cap, the oldest is closed and told why", async () => {
    const ada = await personWithToken([]);
    const cap = limitsFor((await findUserById(h.db, ada.userId))!.plan).eventStreamsPerUser;
    const tabs = Array.from({ length: cap + 1 }, () => new AbortController());
    const readers = [];
    for (const tab of tabs) {
      const res = await events.GET(
        new Request('http://localhost/api/client-approvals/events', { headers: { cookie: ada.cookie }, signal: tab.signal }),
        none,
      );
      readers.push(res.body!.pipeThrough(new TextDecoderStream()).getReader());
    }
    let oldest = '';
    for (let chunk = await readers[0]!.read(); !chunk.done; chunk = await readers[0]!.read()) oldest += chunk.value;
    expect(oldest).toMatch(/event: stream\.closed\ndata: \{"reason":"too_many_streams"/);
    for (const tab of tabs) tab.abort();
    for (const r of readers.slice(1)) await r.cancel().catch(() => {});
  });

  it('marks the call cancelled when the client closes its request while waiting, and the inbox drops it', async () => {
    const ada = await personWithToken(['notes__create']);
    const client = await connectWithToken(served.url, ada.token);
    const stop = new AbortController();
    const pending = client.callTool({ name: 'notes__create', arguments: { title: 'Gone', body: 'x' } }, { signal: stop.signal });
    const call = await waitingCall(ada.cookie);
    stop.abort();
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 100 && (await listInbox(ada.cookie)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await listInbox(ada.cookie)).toEqual([]);
    const [row] = await h.db.select().from(clientApprovals).where(eq(clientApprovals.id, call.id));
    expect(row!.status).toBe('cancelled');
    expect((await decide(ada.cookie, call.id, { decision: 'allow_once', argsHash: call.argsHash })).status).toBe(409);
    await client.close();
  });

  /** A client that declares form elicitation and takes `input_required` back itself (its person answers). */
  async function elicitingClient(url: string, token: string) {
    const client = new Client(
      { name: 'asking-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' }, inputRequired: { autoFulfill: false } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
    return client;
  }
  type Asked = { resultType?: string; inputRequests?: Record<string, { params?: { message?: string } }>; requestState?: string };
  const retry = (client: Client, args: Record<string, unknown>, asked: Asked, response: unknown) =>
    client.callTool(
      // The typed params reject these two keys; the wire needs them verbatim.
      { name: 'notes__create', arguments: args, inputResponses: { approval: response }, requestState: asked.requestState } as {
        name: string;
        arguments: Record<string, unknown>;
      },
      { allowInputRequired: true },
    );

  /** The person lets this client ask them in its own window too (PATCH …/tokens/:id { askInClient }). */
  async function askInClient(person: { cookie: string; tokenId: string }, on: boolean) {
    const res = await token.PATCH(
      new Request(`http://localhost/api/account/tokens/${person.tokenId}`, {
        method: 'PATCH',
        headers: { origin: 'http://localhost', 'content-type': 'application/json', cookie: person.cookie },
        body: JSON.stringify({ askInClient: on }),
      }),
      { params: Promise.resolve({ id: person.tokenId }) },
    );
    expect(res.status, await res.clone().text()).toBe(200);
  }

  it('a client that declares elicitation is not asked unless the person let it (it could answer its own form): it waits', async () => {
    const ada = await personWithToken(['notes__create'], 'Unattended agent');
    const client = await elicitingClient(served.url, ada.token);
    const args = { title: 'Not by form', body: 'x' };
    const pending = client.callTool({ name: 'notes__create', arguments: args }, { allowInputRequired: true });
    let waiting: ClientApprovalView[] = [];
    while (waiting.length === 0) {
      waiting = await listInbox(ada.cookie);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await decide(ada.cookie, waiting[0]!.id, { decision: 'deny', argsHash: waiting[0]!.argsHash })).status).toBe(200);
    const result = (await pending) as Asked & { isError?: boolean };
    expect(result.resultType).not.toBe('input_required');
    expect(result.isError).toBe(true);
    expect(await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).toEqual([]);
    // Its tools stay as they were when the switch changes (one field of the profile at a time).
    await askInClient(ada, true);
    const [listed] = (
      await (await tokens.GET(new Request('http://localhost/api/account/tokens', { headers: { cookie: ada.cookie } }), none)).json()
    ).tokens as { tools: string[] }[];
    expect(listed!.tools).toEqual(['notes__create']);
    await client.close();
  });

  it('asks a client that declared elicitation where the person let it: its answer allows the call once, the inbox card goes', async () => {
    const ada = await personWithToken(['notes__create'], 'Desk app');
    await askInClient(ada, true);
    const client = await elicitingClient(served.url, ada.token);
    const args = { title: 'Asked', body: 'by form' };
    const asked = (await client.callTool({ name: 'notes__create', arguments: args }, { allowInputRequired: true })) as Asked;
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests!.approval!.params!.message).toMatch(/^Switchboard: Desk app wants to run create on Notes \(/);
    const [inInbox] = await listInbox(ada.cookie);
    expect(inInbox).toMatchObject({ client: { name: 'Desk app' }, input: args });

    const result = await retry(client, args, asked, { action: 'accept', content: { decision: 'allow_once' } });
    expect(result.isError).toBeFalsy();
    expect((await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).map((n) => n.title)).toEqual(['Asked']);
    expect(await listInbox(ada.cookie)).toEqual([]);
    const [row] = await h.db.select().from(clientApprovals).where(eq(clientApprovals.id, inInbox!.id));
    expect(row).toMatchObject({ status: 'approved', decidedVia: 'elicitation' });
    // Once: the same answer again is not a second approval.
    const again = await retry(client, args, asked, { action: 'accept', content: { decision: 'allow_once' } });
    expect(again.isError).toBe(true);
    expect(text(again)).toBe(
      'notes__create was not run again: the person allowed it once, and it has run. Call the tool anew to ask again.',
    );
    expect((await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).map((n) => n.title)).toEqual(['Asked']);
    await client.close();
  });

  it("the person's decision in Switchboard wins over a later form answer, and an answer cannot carry other arguments", async () => {
    const ada = await personWithToken(['notes__create']);
    await askInClient(ada, true);
    const client = await elicitingClient(served.url, ada.token);
    const args = { title: 'Contested', body: 'x' };
    const asked = (await client.callTool({ name: 'notes__create', arguments: args }, { allowInputRequired: true })) as Asked;
    const changed = await retry(client, { ...args, title: 'Swapped' }, asked, { action: 'accept', content: { decision: 'allow_once' } });
    expect(changed.isError).toBe(true);
    expect(text(changed)).toBe('notes__create was not run: the answer sent belongs to another call. Call the tool again without it.');

    const [call] = await listInbox(ada.cookie);
    expect((await decide(ada.cookie, call!.id, { decision: 'deny', argsHash: call!.argsHash })).status).toBe(200);
    const late = await retry(client, args, asked, { action: 'accept', content: { decision: 'allow_once' } });
    expect(late.isError).toBe(true);
    expect(text(late)).toMatch(/the person denied it in Switchboard/);
    expect(await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).toEqual([]);
    // A forged request state is refused by the SDK's check of its seal.
    await expect(retry(client, args, { requestState: `${asked.requestState}x` }, { action: 'accept' })).rejects.toThrow();
    await client.close();
  });

  it('holds at most mcpConcurrentCalls calls of one client at once, waits included; one more is refused in words', async () => {
    const ada = await personWithToken(['notes__create']);
    const client = await connectWithToken(served.url, ada.token);
    const first = client.callTool({ name: 'notes__create', arguments: { title: 'One', body: 'x' } });
    const second = client.callTool({ name: 'notes__create', arguments: { title: 'Two', body: 'x' } });
    while ((await listInbox(ada.cookie)).length < 2) await new Promise((r) => setTimeout(r, 50));
    const third = await client.callTool({ name: 'notes__create', arguments: { title: 'Three', body: 'x' } });
    expect(third.isError).toBe(true);
    expect(text(third)).toBe(
      'Limit reached on the pro plan: at most 2 tool calls in progress at once per MCP client. ' +
        'Wait for one of them to finish before calling again.',
    );
    expect(await listInbox(ada.cookie)).toHaveLength(2);
    for (const call of await listInbox(ada.cookie)) await decide(ada.cookie, call.id, { decision: 'deny', argsHash: call.argsHash });
    expect((await first).isError).toBe(true);
    expect((await second).isError).toBe(true);
    // Freed: the next call is taken (and waits).
    const fourth = client.callTool({ name: 'notes__create', arguments: { title: 'Four', body: 'x' } });
    const call = await waitingCall(ada.cookie);
    expect(call.input).toEqual({ title: 'Four', body: 'x' });
    await decide(ada.cookie, call.id, { decision: 'deny', argsHash: call.argsHash });
    expect((await fourth).isError).toBe(true);
    await client.close();
  });
});
