import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { appendMessage } from '@/db/queries/messages';
import { insertRun, updateRunIfVersion } from '@/db/queries/runs';
import { getToolCall, insertToolCalls, updateToolCallIfVersion } from '@/db/queries/tool-calls';
import { createUser } from '@/db/queries/users';
import type { StoredInputResponses } from '@/db/stored-json';
import { argsHash } from '@/lib/agent/args-hash';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/**
 * An answer to a server's question (POST /api/tool-calls/:id/input) names the round it answers;
 * a card replayed from an event stored before rounds existed has none to name. Such an answer is
 * taken where no earlier question could be meant, and refused (409, field `round`) where one could.
 */
describe('answering a question without naming its round', () => {
  let h: DbHandle;
  let route: typeof import('./route');
  let userId: string;
  let cookie: string;
  beforeAll(async () => {
    h = await openRouteRuntime('input-round');
    route = await import('./route');
    userId = (await createUser(h.db, { email: `input-round-${Date.now()}@example.test`, name: 'R' }))!.id;
    ({ cookie } = await sessionCookie(h.db, userId));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  /** A call waiting for the person's answer, its earlier answer (if any) stored as given. */
  async function waitingCall(earlier?: StoredInputResponses) {
    const conversation = await createConversation(h.db, { userId, model: 'demo' });
    const run = (await insertRun(h.db, {
      conversationId: conversation.id,
      userId,
      sessionId: null,
      model: 'demo',
      leaseOwner: 'nobody',
      leaseExpiresAt: new Date(),
    }))!;
    await updateRunIfVersion(h.db, run.id, run.version, { status: 'awaiting_input', leaseOwner: null, leaseExpiresAt: null, step: 1 });
    const input = { message: 'hi' };
    await appendMessage(h.db, {
      conversationId: conversation.id,
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'tu_q', name: 'fx__echo', input }],
      runId: run.id,
      stopReason: 'tool_use',
    });
    const [call] = await insertToolCalls(h.db, [
      {
        runId: run.id,
        conversationId: conversation.id,
        userId,
        step: 1,
        position: 0,
        toolUseId: 'tu_q',
        modelName: 'fx__echo',
        input,
        argsHash: argsHash(input),
        serverId: 'gone-server',
        serverName: 'Gone',
        tool: 'echo',
        trust: 'untrusted',
        annotations: {},
        status: 'awaiting_input',
        inputRequests: { answer: { method: 'elicitation/create', params: { mode: 'form', message: 'Colour?' } } },
      },
    ]);
    if (!earlier) return call!;
    return (await updateToolCallIfVersion(h.db, call!.id, call!.version, { inputResponses: earlier }))!;
  }

  const post = (id: string, body: unknown) =>
    route.POST(
      new Request(`http://localhost/api/tool-calls/${id}/input`, {
        method: 'POST',
        headers: { cookie, origin: 'http://localhost', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
      { params: Promise.resolve({ id }) },
    );
  const decline = { answer: { action: 'decline' } };
  const earlierAnswer = { v: 1 as const, responses: { answer: { action: 'accept' as const } }, by: 'u', at: new Date().toISOString() };

  it('takes it for a question asked again after an answer stored before rounds existed, and stores the round it answered', async () => {
    const call = await waitingCall(earlierAnswer);
    const res = await post(call.id, { responses: decline });
    expect(res.status).toBe(200);
    expect((await res.json()).toolCall).toMatchObject({ id: call.id, status: 'approved' });
    expect((await getToolCall(h.db, call.id))!.inputResponses).toMatchObject({ responses: decline, round: call.version });
  });

  it("takes it for a call's first question, which no earlier one can be mistaken for", async () => {
    const call = await waitingCall();
    expect((await post(call.id, { responses: decline })).status).toBe(200);
  });

  it('refuses it, naming the field, once answers were bound to rounds; the round on screen is taken', async () => {
    const call = await waitingCall({ ...earlierAnswer, round: 0 });
    const res = await post(call.id, { responses: decline });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({ field: 'round', message: expect.stringContaining('has asked more than once') });
    expect((await post(call.id, { responses: decline, round: call.version })).status).toBe(200);
  });

  it('refuses a round that is not a whole number, in words', async () => {
    const call = await waitingCall();
    const res = await post(call.id, { responses: decline, round: null });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ field: 'round' });
  });
});
