import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { startRun } from '@/lib/agent/engine';
import { countStatement, statementsSent } from '@/lib/ops/statement-count';
import { getRuntime } from '@/lib/server/runtime';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { openRouteRuntime } from '@/test/route-runtime';

import { GET } from './route';

/**
 * GET /api/metrics through the real runtime on a test database: off without METRICS_TOKEN,
 * refused without the exact token, and after real turns through the engine (the demo model and
 * the built-in tools) the counters, histograms and gauges say what happened.
 */
describe('/api/metrics', () => {
  let h: DbHandle;
  const TOKEN = randomBytes(24).toString('base64url');

  beforeAll(async () => {
    // The runtime here is the embedded one on a PGlite test database, also when the suite runs with DATABASE_URL.
    h = await openRouteRuntime('metrics', { DATABASE_URL: '' });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await new Promise((r) => setTimeout(r, 200));
    await h?.close();
  });

  const scrape = (authorization?: string) =>
    GET(new Request('http://localhost/api/metrics', { headers: authorization ? { authorization } : {} }));

  /** The value of one sample of the exposition, e.g. `switchboard_turns_ended_total{status="completed"}`. */
  function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
    const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    for (const line of text.split('\n')) {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
      if (!m || m[1] !== name) continue;
      const have = m[2] ? m[2].split(',') : [];
      if (wanted.length === have.length && wanted.every((w) => have.includes(w))) return Number(m[3]);
    }
    return undefined;
  }

  it('does not exist without METRICS_TOKEN (404), naming what turns it on', async () => {
    vi.stubEnv('METRICS_TOKEN', '');
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatchObject({ code: 'not_found:metrics', message: expect.stringContaining('METRICS_TOKEN') });
  });

  it('refuses a missing or wrong token (401) and says nothing of the metrics', async () => {
    vi.stubEnv('METRICS_TOKEN', TOKEN);
    for (const auth of [undefined, `Bearer ${TOKEN.slice(0, -1)}x`, 'Bearer nope', TOKEN]) {
      const res = await scrape(auth);
      expect(res.status, String(auth)).toBe(401);
      const body = await res.text();
      expect(JSON.parse(body).error.code).toBe('unauthorized:metrics');
      expect(body).not.toContain('switchboard_');
    }
  });

  it('exposes Prometheus text with no-store: process memory, no streams, PGlite as one connection in use', async () => {
    vi.stubEnv('METRICS_TOKEN', TOKEN);
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'switchboard_sse_streams_active')).toBe(0);
    expect(sample(text, 'switchboard_db_pool_connections', { state: 'in_use', database: 'pglite' })).toBe(1);
    expect(sample(text, 'switchboard_db_pool_connections', { state: 'idle', database: 'pglite' })).toBe(0);
    expect(sample(text, 'switchboard_db_pool_waiting', { database: 'pglite' })).toBe(0);
    expect(text).toContain('# TYPE switchboard_turns_ended_total counter');
    expect(text).toContain('# TYPE switchboard_model_step_seconds histogram');
  });

  it('counts the statements the process sent to its database (what lib/server/database.ts reports)', async () => {
    vi.stubEnv('METRICS_TOKEN', TOKEN);
    const statements = async () => sample(await (await scrape(`Bearer ${TOKEN}`)).text(), 'switchboard_db_statements_total');
    const before = await statements();
    expect(before).toBe(statementsSent());
    for (let i = 0; i < 3; i++) countStatement();
    expect(await statements()).toBe(before! + 3);
  });

  it('after real turns the counters moved: turns started and ended, a tool call by outcome, model steps timed, a stream', async () => {
    vi.stubEnv('METRICS_TOKEN', TOKEN);
    const rt = await getRuntime();
    // The engine as the app wires it (its tools, its observer), with work tracked so the test can wait for it.
    const deps = engineDeps(h, { tools: rt.tools.host, observe: rt.engine.observe });
    const before = await (await scrape(`Bearer ${TOKEN}`)).text();
    const { user, conversation } = await userAndConversation(h);
    await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hello' });
    await deps.idle();
    await startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'use notes__search please' });
    await deps.idle();
    const closeStream = rt.streams.admit({
      userId: user.id,
      conversationId: conversation.id,
      caps: { perUser: 5, perConversation: 5 },
      close: () => {},
    });

    const after = await (await scrape(`Bearer ${TOKEN}`)).text();
    closeStream();
    const moved = (name: string, labels?: Record<string, string>) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(moved('switchboard_turns_started_total')).toBe(2);
    expect(moved('switchboard_turns_ended_total', { status: 'completed' })).toBe(2);
    expect(moved('switchboard_tool_calls_ended_total', { outcome: 'succeeded' })).toBe(1);
    // Three model calls: one for the greeting, two for the tool turn (the call, then the answer).
    expect(moved('switchboard_model_step_seconds_count', { outcome: 'message' })).toBe(3);
    expect(moved('switchboard_model_step_seconds_sum', { outcome: 'message' })).toBeGreaterThan(0);
    expect(moved('switchboard_model_first_delta_seconds_count')).toBe(3);
    expect(sample(after, 'switchboard_sse_streams_active')).toBe(1);
    expect(sample(await (await scrape(`Bearer ${TOKEN}`)).text(), 'switchboard_sse_streams_active')).toBe(0);
  });
});
