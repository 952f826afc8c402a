import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { createUser } from '@/db/queries/users';
import type { StoredAuditToolCall } from '@/db/stored-json';
import type { AuditOutcome } from '@/db/vocabulary';
import { activityFilterOptions } from '@/lib/audit/activity';
import { appendAudit } from '@/lib/audit/append';
import { getAuditKeyring } from '@/lib/audit/key';
import { openRouteRuntime } from '@/test/route-runtime';
import { sessionCookie } from '@/test/route-session';

/** /api/activity and /api/activity/verify as Next.js calls them, through the real runtime, on a test database. */

const ORIGIN = 'http://localhost';

function toolCallContent(o: { conversationId: string; tool: string; outcome: AuditOutcome; serverId?: string }): StoredAuditToolCall {
  const at = new Date().toISOString();
  return {
    v: 1,
    kind: 'tool_call',
    toolCallId: randomUUID(),
    runId: randomUUID(),
    conversation: { id: o.conversationId, title: 'A conversation' },
    server: { id: o.serverId ?? 'srv-1', name: 'Server One' },
    tool: o.tool,
    modelName: `one__${o.tool}`,
    trust: 'trusted',
    arguments: { proposed: { q: 1 }, proposedHash: 'h', executed: { q: 1 }, executedHash: 'h', edited: false },
    verdict: { kind: 'auto', rule: 'A trusted server marks this tool as read-only.', by: null, decision: null, reason: null, warnings: [] },
    grant: { id: null, constraint: null },
    outcome: o.outcome,
    timing: { proposedAt: at, startedAt: at, endedAt: at, durationMs: 0 },
    attempts: 1,
    result: null,
  };
}

describe('/api/activity routes', () => {
  let h: DbHandle;
  let routes: { list: typeof import('./route'); verify: typeof import('./verify/route') };
  let alice: { id: string; cookie: string };
  let bob: { id: string; cookie: string };
  const convA = randomUUID();
  const convB = randomUUID();

  beforeAll(async () => {
    h = await openRouteRuntime('activity');
    routes = { list: await import('./route'), verify: await import('./verify/route') };
    alice = await signedIn('alice');
    bob = await signedIn('bob');
    const keys = await getAuditKeyring();
    await appendAudit(h.db, keys, [
      { userId: alice.id, content: toolCallContent({ conversationId: convA, tool: 'search', outcome: 'succeeded' }) },
      { userId: alice.id, content: toolCallContent({ conversationId: convA, tool: 'write', outcome: 'denied' }) },
      { userId: alice.id, content: toolCallContent({ conversationId: convB, tool: 'search', outcome: 'errored', serverId: 'srv-2' }) },
    ]);
    await appendAudit(h.db, keys, [
      { userId: bob.id, content: toolCallContent({ conversationId: randomUUID(), tool: 'secret', outcome: 'succeeded' }) },
    ]);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await h?.close();
  });

  async function signedIn(name: string) {
    const user = (await createUser(h.db, { email: `${name}-${randomUUID()}@example.test` }))!;
    const { cookie } = await sessionCookie(h.db, user.id);
    return { id: user.id, cookie };
  }

  const none = { params: Promise.resolve({}) } as { params: Promise<Record<string, never>> };
  const get = (route: { GET: (r: Request, c: typeof none) => Promise<Response> }, query: string, cookie?: string) =>
    route.GET(new Request(`${ORIGIN}${query}`, { headers: cookie ? { cookie } : {} }), none);

  it('needs a session', async () => {
    expect((await get(routes.list, '/api/activity')).status).toBe(401);
    expect((await get(routes.verify, '/api/activity/verify')).status).toBe(401);
  });

  it('shows a person only their own entries, newest first, whatever the filter names', async () => {
    const mine = await (await get(routes.list, '/api/activity', alice.cookie)).json();
    expect(mine.entries.map((e: { seq: number }) => e.seq)).toEqual([3, 2, 1]);
    expect(JSON.stringify(mine)).not.toContain('secret');
    const bobs = await (await get(routes.list, '/api/activity', bob.cookie)).json();
    expect(bobs.entries.map((e: { content: { tool: string } }) => e.content.tool)).toEqual(['secret']);
    // Alice asking for Bob's conversation or tool call finds nothing of his.
    const bobEntry = bobs.entries[0];
    const probe = await get(routes.list, `/api/activity?conversation=${bobEntry.content.conversation.id}`, alice.cookie);
    expect((await probe.json()).entries).toEqual([]);
    const byCall = await get(routes.list, `/api/activity?toolCall=${bobEntry.content.toolCallId}`, alice.cookie);
    expect((await byCall.json()).entries).toEqual([]);
  });

  it('filters by conversation, server, tool, outcome and date, and pages by cursor', async () => {
    const q = async (query: string) =>
      (await (await get(routes.list, `/api/activity?${query}`, alice.cookie)).json()) as {
        entries: { seq: number }[];
        nextCursor: string | null;
      };
    expect((await q(`conversation=${convA}`)).entries.map((e) => e.seq)).toEqual([2, 1]);
    expect((await q('server=srv-2')).entries.map((e) => e.seq)).toEqual([3]);
    expect((await q('tool=search')).entries.map((e) => e.seq)).toEqual([3, 1]);
    expect((await q('outcome=denied')).entries.map((e) => e.seq)).toEqual([2]);
    expect((await q('to=2000-01-01')).entries).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await q(`from=${today}&to=${today}`)).entries).toHaveLength(3);
    const first = await q('limit=2');
    expect(first.entries.map((e) => e.seq)).toEqual([3, 2]);
    expect(first.nextCursor).toBe('2');
    const next = await q(`limit=2&cursor=${first.nextCursor}`);
    expect(next.entries.map((e) => e.seq)).toEqual([1]);
    expect(next.nextCursor).toBeNull();
  });

  it('offers as filters the conversations and servers the person’s own log mentions', async () => {
    const options = await activityFilterOptions(h.db, alice.id);
    expect(options.conversations.map((c) => c.id).sort()).toEqual([convA, convB].sort());
    expect(options.conversations[0]!.name).toBe('A conversation');
    expect(options.servers).toEqual([
      { id: 'srv-1', name: 'Server One' },
      { id: 'srv-2', name: 'Server One' },
    ]);
  });

  it('answers a bad parameter with 400 naming it and what is allowed', async () => {
    const res = await get(routes.list, '/api/activity?outcome=exploded', alice.cookie);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'bad_request:query',
        field: 'outcome',
        message: expect.stringMatching(/^outcome: must be one of denied, rejected, succeeded/),
      },
    });
    expect(await (await get(routes.list, '/api/activity?from=yesterday', alice.cookie)).json()).toMatchObject({ error: { field: 'from' } });
    expect(await (await get(routes.list, '/api/activity?limit=5000', alice.cookie)).json()).toMatchObject({ error: { field: 'limit' } });
    expect(await (await get(routes.list, '/api/activity?user=x', alice.cookie)).json()).toMatchObject({
      error: { field: 'user', message: expect.stringContaining('unknown parameter') },
    });
  });

  it('exports the whole log as JSON Lines with the chain head last, and verifies against it', async () => {
    const res = await get(routes.list, '/api/activity?format=jsonl', alice.cookie);
    expect(res.headers.get('content-type')).toMatch(/^application\/jsonl/);
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="switchboard-activity-/);
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['entry', 'entry', 'entry', 'head']);
    const head = lines.at(-1);
    expect(head).toMatchObject({ userId: alice.id, seq: 3, hmac: lines[2].hmac });

    const ok = await get(routes.verify, `/api/activity/verify?seq=${head.seq}&hmac=${head.hmac}`, alice.cookie);
    expect(await ok.json()).toMatchObject({ ok: true, checked: 3, lastSeq: 3 });
    // Bob's chain is his own: Alice's export head means nothing there.
    expect(await (await get(routes.verify, '/api/activity/verify', bob.cookie)).json()).toMatchObject({ ok: true, checked: 1 });

    await h.db.execute(sql`delete from audit_entries where user_id = ${alice.id} and seq = 3`);
    await h.db.execute(sql`update audit_chain_heads set last_seq = 2, last_hmac = ${lines[1].hmac} where user_id = ${alice.id}`);
    const broken = await get(routes.verify, `/api/activity/verify?seq=${head.seq}&hmac=${head.hmac}`, alice.cookie);
    expect(await broken.json()).toMatchObject({ ok: false, seq: 3, problem: 'tail_deleted' });
    const half = await get(routes.verify, '/api/activity/verify?seq=3', alice.cookie);
    expect(await half.json()).toMatchObject({ error: { field: 'hmac' } });
  });
});
