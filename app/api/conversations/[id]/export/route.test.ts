import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createConversation } from '@/db/queries/conversations';
import { appendMessage } from '@/db/queries/messages';
import { insertRun, updateRunIfVersion } from '@/db/queries/runs';
import { insertToolCalls } from '@/db/queries/tool-calls';
import { createUser } from '@/db/queries/users';
import { argsHash } from '@/lib/agent/args-hash';
import { RESULT_TEXT_MAX } from '@/lib/chat/export';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/** GET /api/conversations/:id/export: the conversation as Markdown or as the versioned JSON document. */
describe('/api/conversations/:id/export', () => {
  let h: DbHandle;
  let route: typeof import('./route');
  beforeAll(async () => {
    h = await openRouteRuntime('export', { DEMO_MODEL_DELAY_MS: '0' });
    route = await import('./route');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  const LONG = 'x'.repeat(RESULT_TEXT_MAX + 500);

  /** A conversation with a question, an answer with code, a finished call with a long result, and one not switched on. */
  async function conversationWithCalls() {
    const user = (await createUser(h.db, { email: `e-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    const c = await createConversation(h.db, { userId: user.id, model: 'demo', title: 'Trip: Lisbon / Porto?' });
    const run = (await insertRun(h.db, {
      conversationId: c.id,
      userId: user.id,
      sessionId: null,
      model: 'demo',
      leaseOwner: 'nobody',
      leaseExpiresAt: new Date(),
    }))!;
    await updateRunIfVersion(h.db, run.id, run.version, { status: 'completed', leaseOwner: null, leaseExpiresAt: null });
    const runId = run.id;
    await appendMessage(h.db, { conversationId: c.id, role: 'user', content: [{ type: 'text', text: 'Find my **notes**' }], runId });
    const searchInput = { query: 'lisbon' };
    const createInput = { title: 'Plan', body: 'use ``` fences' };
    await appendMessage(h.db, {
      conversationId: c.id,
      role: 'assistant',
      runId,
      stopReason: 'tool_use',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'tu_search', name: 'notes__search', input: searchInput },
        { type: 'tool_use', id: 'tu_create', name: 'notes__create', input: createInput },
      ],
    });
    await appendMessage(h.db, {
      conversationId: c.id,
      role: 'user',
      runId,
      content: [
        { type: 'tool_result', tool_use_id: 'tu_search', content: [{ type: 'text', text: 'found' }] },
        { type: 'tool_result', tool_use_id: 'tu_create', is_error: true, content: [{ type: 'text', text: 'not available' }] },
      ],
    });
    await appendMessage(h.db, {
      conversationId: c.id,
      role: 'assistant',
      runId,
      stopReason: 'end_turn',
      content: [{ type: 'text', text: 'Here:\n\n```ts\nconst a = 1;\n```' }],
    });
    const base = { runId, conversationId: c.id, userId: user.id, step: 1 };
    await insertToolCalls(h.db, [
      {
        ...base,
        position: 0,
        toolUseId: 'tu_search',
        modelName: 'notes__search',
        input: searchInput,
        argsHash: argsHash(searchInput),
        serverId: 'builtin-notes',
        serverName: 'Notes',
        tool: 'search',
        trust: 'trusted',
        annotations: { readOnlyHint: true },
        status: 'succeeded',
        verdict: { v: 1, verdict: 'auto', reason: 'On by default.', warnings: [], grantId: null, constraint: null },
        result: {
          type: 'tool_result',
          tool_use_id: 'tu_search',
          content: [{ type: 'text', text: `<tool_output server="Notes" tool="search">\n${LONG}\n</tool_output>` }],
        },
        resultChars: LONG.length,
        resultTruncated: false,
      },
      {
        ...base,
        position: 1,
        toolUseId: 'tu_create',
        modelName: 'notes__create',
        input: createInput,
        argsHash: argsHash(createInput),
        status: 'rejected',
        verdict: {
          v: 1,
          verdict: 'reject',
          reason: 'It is not switched on in this conversation.',
          warnings: [],
          grantId: null,
          constraint: null,
        },
        result: { type: 'tool_result', tool_use_id: 'tu_create', is_error: true, content: [{ type: 'text', text: 'not available' }] },
      },
    ]);
    return { cookie, id: c.id, userId: user.id };
  }

  const get = (cookie: string, query = '') =>
    new Request(`http://localhost/api/conversations/x/export${query}`, { headers: { cookie, origin: 'http://localhost' } });
  const at = (id: string) => ({ params: Promise.resolve({ id }) });

  it('downloads Markdown: title, authors, text as written, tool calls readable, a cut result said to be cut', async () => {
    const { cookie, id } = await conversationWithCalls();
    const res = await route.GET(get(cookie, '?format=md'), at(id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Trip- Lisbon - Porto.md"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const md = await res.text();
    expect(md.startsWith('# Trip: Lisbon / Porto?\n')).toBe(true);
    expect(md).toContain('## You · ');
    expect(md).toContain('Find my **notes**');
    expect(md).toContain('## Assistant · ');
    expect(md).toContain('Here:\n\n```ts\nconst a = 1;\n```');
    expect(md).toContain('**Tool call: Notes · search** — done');
    expect(md).toContain('```json\n{\n  "query": "lisbon"\n}\n```');
    expect(md).toContain(`*Cut here: the first 4,000 of ${LONG.length.toLocaleString('en')} characters.*`);
    expect(md).not.toContain('x'.repeat(RESULT_TEXT_MAX + 1));
    // The call the model made of a tool not switched on: its name, the outcome and why.
    expect(md).toContain('**Tool call: notes__create** — not run');
    expect(md).toContain('Why: It is not switched on in this conversation.');
    // An argument with a fence inside gets a longer fence, so the block cannot end early.
    expect(md).toContain('````json\n{\n  "body": "use ``` fences",\n  "title": "Plan"\n}\n````');
    // The user turn that only carried tool results is not a message of its own.
    expect(md.match(/^## You/gm)).toHaveLength(1);
  });

  it('downloads the versioned JSON document, with no internal ids and the same order as the page', async () => {
    const { cookie, id, userId } = await conversationWithCalls();
    const res = await route.GET(get(cookie, '?format=json'), at(id));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Trip- Lisbon - Porto.json"');
    const text = await res.text();
    const doc = JSON.parse(text);
    expect(doc).toMatchObject({
      format: 'switchboard-conversation',
      version: 1,
      conversation: { title: 'Trip: Lisbon / Porto?', model: 'demo' },
    });
    expect(doc.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    const [search, create] = doc.messages[1].parts.filter((p: { type: string }) => p.type === 'tool_call');
    expect(search.call).toMatchObject({
      server: 'Notes',
      tool: 'search',
      name: 'notes__search',
      status: 'succeeded',
      arguments: { query: 'lisbon' },
    });
    expect(search.call.result).toMatchObject({ isError: false, chars: LONG.length, cut: true, modelGotPart: false });
    expect(search.call.result.text).toHaveLength(RESULT_TEXT_MAX);
    expect(create.call).toMatchObject({ server: null, status: 'rejected', reason: 'It is not switched on in this conversation.' });
    // None of the ids the person cannot use: conversation, user, run, message, tool use, server.
    for (const internal of [id, userId, 'tu_search', 'builtin-notes', '"id"', 'runId', 'argsHash']) expect(text).not.toContain(internal);
  });

  it('takes Markdown when no format is given, and refuses another format naming the field and what is allowed', async () => {
    const { cookie, id } = await conversationWithCalls();
    expect((await route.GET(get(cookie), at(id))).headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const bad = await route.GET(get(cookie, '?format=pdf'), at(id));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({
      code: 'bad_request:query',
      field: 'format',
      message: 'format: must be one of md, json',
    });
  });

  it('is not found for another user, and for an id that is not one', async () => {
    const { id } = await conversationWithCalls();
    const other = (await createUser(h.db, { email: `o-${Math.random().toString(36).slice(2)}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, other.id);
    const res = await route.GET(get(cookie, '?format=json'), at(id));
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found:conversation');
    expect((await route.GET(get(cookie), at('not-an-id'))).status).toBe(404);
  });
});
