import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { markAccessTokenTainted, tokenTaintOf } from '@/db/queries/access-tokens';
import { createConversation, deleteConversation as deleteStoredConversation, listConversations } from '@/db/queries/conversations';
import { searchNotes } from '@/db/queries/notes';
import { insertRun } from '@/db/queries/runs';
import { getConversationTaint, markConversationTainted } from '@/db/queries/taint';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { createUser } from '@/db/queries/users';
import { accessTokens, auditEntries, runs } from '@/db/schema';
import type { StoredAuditClientCall } from '@/db/stored-json';
import { connectWithToken, serveMcpRoutes, type McpEndpointServer } from '@/test/fixtures/mcp-endpoint';
import { startScriptedModel, type RecordedRequest, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * Switchboard's own agent as a tool (issue 25): `switchboard_ask` through the real `/mcp` route,
 * called by the official client SDK as a third-party client; the turn runs in the app's runtime
 * against a scripted Anthropic-compatible model on 127.0.0.1, and the person decides on the web API.
 */

type Block = { type: string; text?: string };
const textOf = (content: unknown): string =>
  (typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Block[]))
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join(' ');

/**
 * The model: a title when asked for one; after a tool result, "The note is written."; asked to
 * "write a note", a call of notes__create; otherwise it repeats every user prompt it was sent, so a
 * test sees which earlier turns it read.
 */
function respond(req: RecordedRequest): ScriptedReply {
  if (req.body.stream !== true) return { blocks: [{ type: 'text', text: 'A title' }] };
  const messages = req.body.messages;
  const last = messages.at(-1)!;
  if (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result')) {
    return { blocks: [{ type: 'text', text: 'The note is written.' }] };
  }
  if (textOf(last.content).includes('write a note')) {
    const id = `toolu_${randomBytes(6).toString('hex')}`;
    return { blocks: [{ type: 'tool_use', id, name: 'notes__create', input: { title: 'From the agent', body: 'hi' } }] };
  }
  const prompts = messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
  return { blocks: [{ type: 'text', text: `You said: ${prompts.filter(Boolean).join(' | ')}` }] };
}

describe('/mcp: switchboard_ask, the agent as a tool', () => {
  let h: DbHandle;
  let served: McpEndpointServer;
  /** The same /mcp with a short wait (another endpoint of the same runtime): a turn waiting for the person returns. */
  let shortWait: McpEndpointServer;
  let brokenBus: McpEndpointServer;
  let model: Awaited<ReturnType<typeof startScriptedModel>>;
  let tokens: typeof import('../api/account/tokens/route');
  let token: typeof import('../api/account/tokens/[id]/route');
  let conversations: typeof import('../api/conversations/route');
  let oneConversation: typeof import('../api/conversations/[id]/route');
  let decision: typeof import('../api/tool-calls/[id]/decision/route');
  const closers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    model = await startScriptedModel(Array.from({ length: 200 }, () => respond));
    h = await openRouteRuntime('mcp-ask', {
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdefghij',
      ANTHROPIC_MODEL: 'claude-scripted-1',
      // Long enough for any turn here to end while the call waits.
      MCP_ASK_WAIT_MS: '20000',
    });
    const mcp = await import('./route');
    const metadata = await import('../.well-known/oauth-protected-resource/mcp/route');
    tokens = await import('../api/account/tokens/route');
    token = await import('../api/account/tokens/[id]/route');
    conversations = await import('../api/conversations/route');
    oneConversation = await import('../api/conversations/[id]/route');
    decision = await import('../api/tool-calls/[id]/decision/route');
    served = await serveMcpRoutes({ mcp, metadata: metadata.GET });

    const { getRuntime } = await import('@/lib/server/runtime');
    const { createGatewayEndpoint } = await import('@/lib/gateway/service');
    const { requestStateKey } = await import('@/lib/gateway/elicit-approval');
    const rt = await getRuntime();
    const endpoint = createGatewayEndpoint({
      db: h.db,
      tools: rt.tools.host,
      auditKeys: rt.engine.auditKeys,
      bus: rt.bus,
      approvalWaitMs: 600,
      stateKey: requestStateKey(rt.secret),
      chat: rt,
    });
    // The same with a bus that fails to subscribe: an unforeseen error once the turn has started.
    const broken = createGatewayEndpoint({
      db: h.db,
      tools: rt.tools.host,
      auditKeys: rt.engine.auditKeys,
      bus: { ...rt.bus, subscribe: () => Promise.reject(new Error('the bus is down')) },
      approvalWaitMs: 600,
      stateKey: requestStateKey(rt.secret),
      chat: rt,
    });
    const serveBroken = (req: Request) => broken.serve(req);
    brokenBus = await serveMcpRoutes({
      mcp: { GET: serveBroken, POST: serveBroken, DELETE: serveBroken },
      metadata: () => new Response(null),
    });
    closers.push(brokenBus, broken);
    const serve = (req: Request) => endpoint.serve(req);
    shortWait = await serveMcpRoutes({ mcp: { GET: serve, POST: serve, DELETE: serve }, metadata: () => new Response(null) });
    closers.push(shortWait, endpoint);
  }, 30_000);
  afterAll(async () => {
    await served?.close();
    for (const c of closers) await c.close();
    vi.unstubAllEnvs();
    await h?.close();
    await model?.close();
  });

  const none = { params: Promise.resolve({}) };
  const post = (path: string, cookie: string, body: unknown, method = 'POST') =>
    new Request(`http://localhost${path}`, {
      method,
      headers: { origin: 'http://localhost', 'content-type': 'application/json', cookie },
      body: JSON.stringify(body),
    });
  /** A person with a token exposing `tools`, Switchboard's agent switched on unless `agentTool: false`. */
  async function person(tools: string[] = [], opts: { agentTool?: boolean } = {}) {
    const user = (await createUser(h.db, { email: `k-${randomBytes(4).toString('hex')}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const made = await (await tokens.POST(post('/api/account/tokens', cookie, { name: 'Research agent', tools }), none)).json();
    if (opts.agentTool !== false) {
      const res = await token.PATCH(post(`/api/account/tokens/${made.id}`, cookie, { agentTool: true }, 'PATCH'), {
        params: Promise.resolve({ id: made.id }),
      });
      expect(res.status).toBe(200);
    }
    return { userId: user.id, cookie, token: made.token as string, tokenId: made.id as string };
  }
  const ask = (client: Client, args: Record<string, unknown>) => client.callTool({ name: 'switchboard_ask', arguments: args });
  const text = (r: { content?: unknown }) => ((r.content as Block[])[0]?.text ?? '') as string;
  const runsOf = async (conversationId: string) => h.db.select().from(runs).where(eq(runs.conversationId, conversationId));
  const askEntries = async (userId: string) =>
    (await h.db.select().from(auditEntries).where(eq(auditEntries.userId, userId)))
      .map((e) => ({ content: e.content as StoredAuditClientCall, conversationId: e.conversationId }))
      .filter((e) => e.content.kind === 'client_call' && e.content.name === 'switchboard_ask');

  /** Reads again until `find` returns something: waits for a state, not for a time. */
  async function until<T>(find: () => Promise<T | null | undefined>): Promise<T> {
    for (;;) {
      const found = await find();
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  /** The person's run once it waits for their approval. */
  const pausedRunOf = (userId: string) =>
    until(async () => (await h.db.select().from(runs).where(eq(runs.userId, userId))).find((r) => r.status === 'awaiting_approval'));
  const deleteConversation = (cookie: string, id: string) =>
    oneConversation.DELETE(post(`/api/conversations/${id}`, cookie, {}, 'DELETE'), { params: Promise.resolve({ id }) });

  it('is off by default: not listed and refused; the person switches it on and the client sees it next request', async () => {
    const ada = await person(['notes__search'], { agentTool: false });
    const client = await connectWithToken(served.url, ada.token);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['notes__search']);
    const refused = await ask(client, { prompt: 'hello' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^No tool named "switchboard_ask" is exposed to this client/);
    expect(await h.db.select().from(runs).where(eq(runs.userId, ada.userId))).toEqual([]);

    const on = await token.PATCH(post(`/api/account/tokens/${ada.tokenId}`, ada.cookie, { agentTool: true }, 'PATCH'), {
      params: Promise.resolve({ id: ada.tokenId }),
    });
    expect(on.status).toBe(200);
    const listed = (await client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(['switchboard_ask', 'notes__search']);
    expect(listed[0]!.inputSchema.required).toEqual(['prompt']);
    const list = await (
      await tokens.GET(new Request('http://localhost/api/account/tokens', { headers: { cookie: ada.cookie } }), none)
    ).json();
    expect(list.tokens[0]).toMatchObject({ agentTool: true, askInClient: false });
    await client.close();
  });

  it("answers with the turn's final text, the conversation's link and id; a follow-up by id continues it", async () => {
    const ada = await person();
    const client = await connectWithToken(served.url, ada.token);
    const first = await ask(client, { prompt: 'What is the capital of France?' });
    expect(first.isError).toBeFalsy();
    const out = first.structuredContent as { status: string; conversationId: string; url: string; answer: string };
    expect(out).toEqual({
      status: 'answered',
      conversationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: `${served.origin}/c/${out.conversationId}`,
      answer: 'You said: What is the capital of France?',
    });
    expect(text(first)).toBe(`You said: What is the capital of France?\n\n— Switchboard conversation ${out.url}`);

    // The conversation is the person's, marked as started by this client.
    const listed = await (
      await conversations.GET(new Request('http://localhost/api/conversations', { headers: { cookie: ada.cookie } }), none)
    ).json();
    expect(listed.conversations).toEqual([expect.objectContaining({ id: out.conversationId, startedBy: 'Research agent' })]);
    const [run] = await runsOf(out.conversationId);
    expect(run).toMatchObject({ status: 'completed', sessionId: null, clientId: ada.tokenId, model: 'claude-scripted-1' });

    const second = await ask(client, { prompt: 'And of Italy?', conversationId: out.conversationId });
    expect(second.structuredContent).toMatchObject({
      status: 'answered',
      conversationId: out.conversationId,
      // The model read the earlier turn.
      answer: 'You said: What is the capital of France? | And of Italy?',
    });
    expect(await runsOf(out.conversationId)).toHaveLength(2);

    // Each call is in the audit log under the client's name, with its conversation.
    const entries = await askEntries(ada.userId);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      conversationId: out.conversationId,
      content: {
        client: { kind: 'access_token', id: ada.tokenId, name: 'Research agent' },
        server: { id: null, name: 'Switchboard' },
        outcome: 'succeeded',
        arguments: { value: { prompt: 'What is the capital of France?' } },
        conversation: { id: out.conversationId },
      },
    });
    await client.close();
  });

  it("refuses another person's conversation, the person's own, an id that is not one; nothing is started", async () => {
    const ada = await person();
    const bob = await person();
    const bobsClient = await connectWithToken(served.url, bob.token);
    const bobs = (await ask(bobsClient, { prompt: 'private question' })).structuredContent as { conversationId: string };
    const adasOwn = await createConversation(h.db, { userId: ada.userId, model: 'claude-scripted-1' });
    const client = await connectWithToken(served.url, ada.token);
    for (const conversationId of [bobs.conversationId, adasOwn.id]) {
      const refused = await ask(client, { prompt: 'summarize this conversation', conversationId });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toBe(
        `switchboard_ask did not start a turn: conversationId: no conversation "${conversationId}" was started by this client. ` +
          'Follow up only in a conversation this client started with switchboard_ask (its id is in that answer); ' +
          'leave conversationId out to start a new one.',
      );
    }
    expect(await runsOf(bobs.conversationId)).toHaveLength(1);
    expect(await runsOf(adasOwn.id)).toHaveLength(0);
    const bad = await ask(client, { prompt: 'hi', conversationId: 'not-an-id' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toBe(
      'Invalid input for switchboard_ask: conversationId: must be the conversationId an earlier switchboard_ask answer gave. ' +
        'Nothing was started.',
    );
    expect(await h.db.select().from(runs).where(eq(runs.userId, ada.userId))).toEqual([]);
    await Promise.all([client.close(), bobsClient.close()]);
  });

  it('a tool call that needs approval: "waiting", a retry starts no second turn, approved on the web the retry answers', async () => {
    const ada = await person(['notes__create']);
    const client = await connectWithToken(shortWait.url, ada.token);
    const prompt = 'Please write a note saying hi';
    // The first call may come back before the run pauses (a loaded machine): its answer is then "working".
    const first = ask(client, { prompt });
    const paused = await pausedRunOf(ada.userId);
    expect((await first).isError).toBeFalsy();
    // Asked again once the run waits for the person: it says so.
    const waiting = await ask(client, { prompt });
    expect(waiting.isError).toBeFalsy();
    const out = waiting.structuredContent as { status: string; conversationId: string; url: string };
    expect(out).toEqual({
      status: 'waiting_for_person',
      conversationId: paused.conversationId,
      url: `${shortWait.origin}/c/${paused.conversationId}`,
    });
    expect(text(waiting)).toBe(
      `The Switchboard turn is waiting for the person in Switchboard (a tool call needs their approval); it goes on without you. ` +
        `See it at ${out.url}. To get its answer, call switchboard_ask again later with the same prompt and conversationId ` +
        `"${out.conversationId}" (this does not start another turn).`,
    );
    // A retry, with and without the id, waits for the same turn.
    expect((await ask(client, { prompt, conversationId: out.conversationId })).structuredContent).toMatchObject({
      status: 'waiting_for_person',
    });
    expect((await ask(client, { prompt })).structuredContent).toMatchObject({
      status: 'waiting_for_person',
      conversationId: out.conversationId,
    });
    expect(await runsOf(out.conversationId)).toHaveLength(1);
    expect(await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).toEqual([]);

    // The person allows it on the conversation's card (the web API), and the run goes on.
    const [call] = await listConversationToolCalls(h.db, out.conversationId);
    expect(call).toMatchObject({ status: 'pending_approval', input: { title: 'From the agent', body: 'hi' } });
    const allowed = await decision.POST(
      post(`/api/tool-calls/${call!.id}/decision`, ada.cookie, { decision: 'allow_once', argsHash: call!.argsHash }),
      {
        params: Promise.resolve({ id: call!.id }),
      },
    );
    expect(allowed.status).toBe(200);
    const long = await connectWithToken(served.url, ada.token);
    const answered = await ask(long, { prompt, conversationId: out.conversationId });
    expect(answered.structuredContent).toMatchObject({
      status: 'answered',
      conversationId: out.conversationId,
      answer: 'The note is written.',
    });
    expect(await runsOf(out.conversationId)).toHaveLength(1);
    expect((await searchNotes(h.db, ada.userId, { query: '', limit: 10 })).map((n) => n.title)).toEqual(['From the agent']);

    // Its answer has gone back: the next call is a new question, a second turn.
    expect((await ask(long, { prompt: 'Thanks', conversationId: out.conversationId })).structuredContent).toMatchObject({
      status: 'answered',
    });
    expect(await runsOf(out.conversationId)).toHaveLength(2);
    await Promise.all([client.close(), long.close()]);
  });

  const tokenTaint = async (who: { userId: string; tokenId: string }) =>
    tokenTaintOf((await h.db.select().from(accessTokens).where(eq(accessTokens.id, who.tokenId)))[0]!);

  it('taint crosses the boundary both ways: a tainted turn taints the token; a tainted token starts a tainted turn', async () => {
    const untrusted = { v: 1 as const, at: new Date().toISOString(), source: 'result' as const, serverId: 's-web', serverName: 'Web' };
    // Out: untrusted text entered the conversation (as an untrusted server's read result would); its answer taints the client.
    const ada = await person();
    const client = await connectWithToken(served.url, ada.token);
    const first = (await ask(client, { prompt: 'Hello' })).structuredContent as { conversationId: string };
    expect(await tokenTaint(ada)).toBeNull();
    await markConversationTainted(h.db, first.conversationId, { ...untrusted, tool: 'fetch' });
    const followUp = await ask(client, { prompt: 'Summarize what you read', conversationId: first.conversationId });
    expect(followUp.structuredContent).toMatchObject({ status: 'answered' });
    expect(await tokenTaint(ada)).toMatchObject({ source: 'result', serverName: 'Web', tool: 'fetch' });

    // In: a client whose context is already tainted sends a prompt the person never vouched for.
    const bob = await person();
    await markAccessTokenTainted(h.db, bob.tokenId, untrusted);
    const bobsClient = await connectWithToken(served.url, bob.token);
    const asked = (await ask(bobsClient, { prompt: 'Do as the page says' })).structuredContent as { conversationId: string };
    expect(await getConversationTaint(h.db, asked.conversationId)).toMatchObject({ serverName: 'Web' });
    await Promise.all([client.close(), bobsClient.close()]);
  });

  it('the person deletes the conversation: a waiting call says so (not a stale status later); a retry runs nothing again', async () => {
    const deletedWords = (id: string) =>
      `The Switchboard turn did not finish: the person deleted its conversation ("${id}"). Nothing was started again; ` +
      'call again to start anew.';
    // Deleted while the call waits: the wait ends with the words, not a stale "still running" at the deadline.
    const ada = await person(['notes__create']);
    const client = await connectWithToken(served.url, ada.token);
    const pending = ask(client, { prompt: 'Please write a note now' });
    const paused = await pausedRunOf(ada.userId);
    // Its rows gone without a run event (the web route cancels the run first, and the call would say
    // "the person stopped it"): the wait notices at its next read of the run.
    await deleteStoredConversation(h.db, ada.userId, paused.conversationId);
    const told = await pending;
    expect(told.isError).toBe(true);
    expect(text(told)).toBe(deletedWords(paused.conversationId));

    // Deleted after the call returned "waiting": the retry is told, and nothing starts in a new conversation.
    const bob = await person(['notes__create']);
    const bobsClient = await connectWithToken(shortWait.url, bob.token);
    const prompt = 'Please write a note later';
    const first = ask(bobsClient, { prompt });
    const bobsRun = await pausedRunOf(bob.userId);
    await first;
    expect((await deleteConversation(bob.cookie, bobsRun.conversationId)).status).toBe(204);
    const retry = await ask(bobsClient, { prompt });
    expect(text(retry)).toBe(deletedWords(bobsRun.conversationId));
    expect(await h.db.select().from(runs).where(eq(runs.userId, bob.userId))).toEqual([]);
    expect((await askEntries(bob.userId)).map((e) => e.content.outcome)).toEqual(['timed_out', 'cancelled']);
    await Promise.all([client.close(), bobsClient.close()]);
  });

  it("a refused turn leaves no conversation; a client has one turn at a time, so it cannot fill the person's run limit", async () => {
    const counts = async (userId: string) => ({
      conversations: (await listConversations(h.db, userId)).length,
      runs: (await h.db.select().from(runs).where(eq(runs.userId, userId))).length,
    });
    // The person's own three turns in progress (activeRunsPerUser): the client's call is refused, and no empty conversation stays.
    const ada = await person();
    for (let i = 0; i < 3; i++) {
      const own = await createConversation(h.db, { userId: ada.userId, model: 'claude-scripted-1' });
      await insertRun(h.db, {
        conversationId: own.id,
        userId: ada.userId,
        sessionId: null,
        model: 'claude-scripted-1',
        leaseOwner: 'elsewhere',
        leaseExpiresAt: new Date(Date.now() + 3_600_000),
      });
    }
    const client = await connectWithToken(served.url, ada.token);

    const refused = await ask(client, { prompt: 'Hello' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^switchboard_ask did not start a turn: /);
    expect(await counts(ada.userId)).toEqual({ conversations: 3, runs: 3 });

    // A turn waiting for the person: another prompt is refused, naming it; nothing new is made.
    const bob = await person(['notes__create']);
    const bobsClient = await connectWithToken(shortWait.url, bob.token);
    const first = ask(bobsClient, { prompt: 'Please write a note first' });
    const paused = await pausedRunOf(bob.userId);
    await first;
    const second = await ask(bobsClient, { prompt: 'Something else' });
    expect(second.isError).toBe(true);
    expect(text(second)).toBe(
      `switchboard_ask did not start a turn: this client already has a turn in progress, in conversation "${paused.conversationId}"; ` +
        'one at a time. Call again with that turn’s prompt and conversationId to get its answer, or wait until it ends.',
    );
    expect(await counts(bob.userId)).toEqual({ conversations: 1, runs: 1 });
    await Promise.all([client.close(), bobsClient.close()]);
  });

  it('an unforeseen failure after the turn started is still audited, as errored', async () => {
    const ada = await person(['notes__create']);
    const client = await connectWithToken(brokenBus.url, ada.token);
    const failed = await ask(client, { prompt: 'Please write a note anyway' }).catch((err: unknown) => ({ isError: true, err }));
    expect(failed.isError).toBe(true);
    expect((await askEntries(ada.userId)).map((e) => e.content.outcome)).toEqual(['errored']);
    await client.close();
  });
});
