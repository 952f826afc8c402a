import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ToolCallView } from '@/lib/agent/tool-call-view';
import { startBadMcpPeer, type BadMcpPeer, type BadMode } from '@/test/fixtures/bad-mcp-peer';

import { missingBuild, startApp, type AppProcess } from './harness/app-process';
import { call, conversationOf, follow, newConversation, pageState, sendMessage, shownText, signUp, type Person } from './harness/client';
import { freshDataDir, freshPostgres, instanceEnv, type FaultDatabase } from './harness/environment';
import { addServer, grantServer, say, scriptedPeer, storedText, useTool, words, type ScriptedPeer } from './harness/peers';

/**
 * Bad peers over real sockets, met through the app's own routes as a person meets them: MCP
 * servers that hang, drop the connection, answer what is not JSON-RPC, send 50 MB, speak a
 * protocol version nobody speaks, or lie about their annotations; a model endpoint that breaks
 * off mid-answer with 429 / 529 / 500 or stops speaking SSE. Each ends with a sentence the page
 * shows, and the next message in the same conversation works.
 *
 * One instance, on a fresh Postgres database when DATABASE_URL is set, else on a fresh embedded one.
 */

const PORTS = { app: 3225, model: 3226, mcp: 3227 };

describe('bad peers through the app', () => {
  let db: FaultDatabase;
  let model: ScriptedPeer;
  let mcp: BadMcpPeer;
  let app: AppProcess;
  let person: Person;

  beforeAll(async () => {
    const missing = missingBuild();
    if (missing) throw new Error(`The fault suite needs a production build: ${missing}.`);
    const base = process.env.DATABASE_URL;
    [db, model, mcp] = await Promise.all([
      base ? freshPostgres(base) : Promise.resolve(freshDataDir()),
      scriptedPeer(PORTS.model),
      startBadMcpPeer(PORTS.mcp),
    ]);
    app = await startApp('C', PORTS.app, instanceEnv('C', db, model.url));
    person = await signUp(app);
  }, 120_000);

  afterAll(async () => {
    await app?.kill();
    await Promise.all([model?.close(), mcp?.close()]);
    await db?.close();
  }, 30_000);

  /** Sends a message and follows the turn to its end, as the page does; returns what the page shows. */
  async function turn(conversationId: string, text: string) {
    const { runId, afterSeq } = await sendMessage(app, person, conversationId, text);
    const f = follow(app, person, conversationId, pageState(await conversationOf(app, person, conversationId)), afterSeq, 40_000);
    await f.done;
    expect(f.ended, `the turn "${text}" ended on the page`).toBe(true);
    return { runId, follower: f, state: f.state, view: await conversationOf(app, person, conversationId) };
  }

  /** After whatever went wrong, the same conversation takes a new message and answers it. */
  async function expectNextMessageWorks(conversationId: string, tag: string) {
    model.script(tag, [say('Back to normal.')]);
    const next = await turn(conversationId, 'and now something simple');
    expect(next.view.lastRun).toMatchObject({ status: 'completed', error: null });
    expect(shownText(next.state, next.runId)).toBe('Back to normal.');
  }

  async function conversationWithServer(tag: string, mode: BadMode, trust: 'trusted' | 'untrusted' = 'trusted') {
    const server = await addServer(app, person, { name: `Bad ${mode}`, url: mcp.urlOf(mode), trust, timeoutMs: 1000 });
    expect(server.status, `${mode}: ${server.lastError}`).toBe('connected');
    const id = await newConversation(app, person);
    await grantServer(app, person, id, server.id);
    return { id, tool: `${server.namespace}__${server.tools[0]!.name}`, tag };
  }

  // ── MCP servers that misbehave when a tool is called ────────────────────────────────────────
  const CALL_FAULTS: { mode: BadMode; does: string; says: RegExp; status: ToolCallView['status']; requests: number }[] = [
    // A trusted read-only tool is tried once more after a timeout or a failure (lib/agent/execute-calls.ts).
    { mode: 'hang', does: 'hangs', says: /Bad hang did not answer "work" and sent no progress for 1 s/, status: 'timed_out', requests: 2 },
    {
      mode: 'drop',
      does: 'drops the connection',
      says: /Could not reach Bad drop \(http:\/\/127\.0\.0\.1:3227\) to run "work": the connection was/,
      status: 'errored',
      requests: 2,
    },
    {
      mode: 'malformed',
      does: 'answers with malformed JSON-RPC',
      says: /Bad malformed \(http:\/\/127\.0\.0\.1:3227\) sent a reply that is not valid MCP \(JSON-RPC\) when asked to run "work"\.$/,
      status: 'errored',
      requests: 2,
    },
    {
      mode: 'huge',
      does: 'sends 50 MB',
      says: /Bad huge's answer to "work" was too large: it went over the limit of 8 MB/,
      status: 'errored',
      requests: 2,
    },
  ];
  for (const fault of CALL_FAULTS) {
    it(`an MCP server that ${fault.does}: the card says so, the model is told, the next message works`, async () => {
      const tag = `mcp-${fault.mode}`;
      const { id, tool } = await conversationWithServer(tag, fault.mode);
      model.script(tag, [useTool('tu_w', tool, { job: tag }), say('The tool did not work; I said so.')]);
      const before = mcp.calls[fault.mode];
      const { runId, state, view } = await turn(id, `[${tag}] do the work`);

      expect(view.lastRun).toMatchObject({ id: runId, status: 'completed' });
      const card = state.toolCalls.tu_w!;
      expect(card.status).toBe(fault.status);
      expect(card.result?.isError).toBe(true);
      const cardText = card.result!.parts.map((p) => ('text' in p ? p.text : '')).join('\n');
      expect(cardText).toMatch(fault.says);
      expect(cardText).not.toMatch(/invalid_union|"code":/); // words, not a dump
      // The page after a reload shows the same card.
      expect(view.toolCalls.find((c) => c.toolUseId === 'tu_w')).toMatchObject({ status: fault.status });
      // The model was told the same sentence, as an error result of that call.
      const toModel = model.requestsOf(tag)[1]!.body.messages.at(-1)!;
      expect(JSON.stringify(toModel)).toMatch(/"is_error":true/);
      expect(JSON.stringify(toModel)).toContain('tu_w');
      expect(mcp.calls[fault.mode] - before).toBe(fault.requests);
      expect(shownText(state, runId)).toBe('The tool did not work; I said so.');
      if (fault.mode === 'huge') expect(mcp.hugeBytesWritten()).toBeLessThan(40 * 1024 * 1024); // the app stopped reading

      await expectNextMessageWorks(id, tag);
    });
  }

  it('an MCP server that answers a wrong protocol version: adding it says why, and conversations go on without it', async () => {
    const { server } = await call<{ server: { status: string; lastError: string | null; id: string } }>(
      app,
      person,
      'POST',
      '/api/servers',
      {
        name: 'Bad wrong_version',
        url: mcp.urlOf('wrong_version'),
        trust: 'trusted',
      },
    );
    expect(server.status).not.toBe('connected');
    expect(server.lastError).toMatch(
      /Bad wrong_version \(http:\/\/127\.0\.0\.1:3227\) could not list its tools: .*protocol version is not supported: 1999-01-01/,
    );
    const id = await newConversation(app, person);
    model.script('wrong-version', [say('Answered without that server.')]);
    const { runId, state, view } = await turn(id, '[wrong-version] hello');
    expect(view.lastRun).toMatchObject({ id: runId, status: 'completed' });
    expect(shownText(state, runId)).toBe('Answered without that server.');
    const offered = (model.requestsOf('wrong-version')[0]!.body.tools ?? []).map((t) => t.name);
    expect(offered.some((n) => n.startsWith('bad_wrong'))).toBe(false);
  });

  it('an MCP server that lies about its annotations (read-only and idempotent, yet it writes): it is asked about, run once', async () => {
    const { id, tool, tag } = await conversationWithServer('mcp-lying', 'lying', 'untrusted');
    model.script(tag, [useTool('tu_l', tool, { value: 'x' }), say('It wrote, as approved.')]);
    const { runId, afterSeq } = await sendMessage(app, person, id, `[${tag}] read the notes`);
    const f = follow(app, person, id, pageState(await conversationOf(app, person, id)), afterSeq);
    const asked = await f.waitFor((e) => e.event === 'tool_call.approval_requested', 'the approval request');
    const card = asked.data.toolCall as ToolCallView;
    // The claim is shown as the server's, and not relied on: the person is asked.
    expect(card.hints).toMatchObject({ annotated: true, readOnly: true });
    expect(card.verdict).toMatchObject({ verdict: 'ask' });
    expect(card.verdict!.reason).toMatch(/annotations are not trusted/i);
    expect(mcp.writes()).toBe(0);
    await call(app, person, 'POST', `/api/tool-calls/${card.id}/decision`, { decision: 'allow_once', argsHash: card.argsHash });
    await f.done;
    expect(f.ended).toBe(true);
    expect(mcp.writes()).toBe(1);
    expect(f.state.toolCalls.tu_l).toMatchObject({ status: 'succeeded' });
    expect(shownText(f.state, runId)).toBe('It wrote, as approved.');
    await expectNextMessageWorks(id, tag);
  });

  // ── A model endpoint that breaks off mid-answer, or stops speaking SSE ──────────────────────
  const MODEL_FAULTS = [
    {
      name: '429 mid-stream',
      type: 'rate_limit_error',
      message: 'Number of request tokens has exceeded your rate limit',
      says: 'The model provider is rate-limiting requests (429). Try again shortly.',
    },
    {
      name: '529 mid-stream',
      type: 'overloaded_error',
      message: 'Overloaded',
      says: 'The model is overloaded right now (529). Try again shortly.',
    },
    {
      name: '500 mid-stream',
      type: 'api_error',
      message: 'Internal server error',
      says: "The model's answer was cut off before it finished: Internal server error.",
    },
  ];
  for (const fault of MODEL_FAULTS) {
    it(`a model endpoint answering ${fault.name}: the partial answer is kept, the failure said; the next message works`, async () => {
      const tag = `model-${fault.type}`;
      const id = await newConversation(app, person);
      const answer = words('partial', 12);
      model.script(tag, [
        { kind: 'error_mid_stream', blocks: [{ type: 'text', text: answer }], afterDeltas: 4, type: fault.type, message: fault.message },
      ]);
      const { runId, state, view } = await turn(id, `[${tag}] answer me`);
      expect(view.lastRun).toMatchObject({ id: runId, status: 'failed' });
      expect(state.lastRun).toMatchObject({ id: runId, status: 'failed' });
      expect(state.lastRun!.error!.message).toBe(fault.says);
      // The words that arrived are kept (stored), and shown once.
      const kept = storedText(view, runId);
      expect(answer.startsWith(kept) && kept.length > 0, kept).toBe(true);
      expect(shownText(state, runId)).toBe(kept);
      expect(model.requestsOf(tag)).toHaveLength(1); // after the answer began: not retried
      await expectNextMessageWorks(id, tag);
    });
  }

  it('a model endpoint whose stream stops being SSE: a clear failure, and the next message works', async () => {
    const tag = 'model-malformed';
    const id = await newConversation(app, person);
    model.script(tag, [{ kind: 'malformed', blocks: [{ type: 'text', text: words('garbled', 10) }], afterDeltas: 3 }]);
    const { runId, state, view } = await turn(id, `[${tag}] answer me`);
    expect(view.lastRun).toMatchObject({ id: runId, status: 'failed' });
    expect(state.lastRun!.error!.message).toMatch(/^The model's answer was cut off before it finished/);
    expect(state.lastRun!.error!.message).not.toMatch(/at \w+ \(|node_modules/); // no stack trace
    await expectNextMessageWorks(id, tag);
  });

  it('a model endpoint answering 429 before the answer: the page says it retries, then the answer comes', async () => {
    const tag = 'model-429-first';
    const id = await newConversation(app, person);
    model.script(tag, [
      { kind: 'status', status: 429, type: 'rate_limit_error', message: 'slow down', retryAfter: '1' },
      say('Worth the wait.'),
    ]);
    const { runId, follower, view } = await turn(id, `[${tag}] answer me`);
    expect(view.lastRun, JSON.stringify(view.lastRun?.error)).toMatchObject({ id: runId, status: 'completed' });
    const retrying = follower.states.find((s) => s.frame.event === 'run.retrying');
    expect(retrying?.state.retrying?.message).toMatch(/429|rate/i);
    expect(shownText(follower.state, runId)).toBe('Worth the wait.');
    expect(follower.state.retrying).toBeNull();
    expect(model.requestsOf(tag)).toHaveLength(2);
  });
});
