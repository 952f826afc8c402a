import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { appendMessage, listMessages } from '@/db/queries/messages';
import { getRun, renewRunLeases, updateRunIfVersion, type RunRow } from '@/db/queries/runs';
import { listConversationToolCalls, type ToolCallRow } from '@/db/queries/tool-calls';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, userAndConversation } from '@/test/engine-harness';
import { blocksOf, clonePostgres, expectInvariant, spawnEngineChild, waitUntil } from '@/test/fixtures/fault-kit';
import { FIXTURE_TOOLS } from '@/test/fixtures/fixture-tools';
import { startFixtureServer, type FixtureServer } from '@/test/fixtures/mcp-fixture-server';
import { startScriptedModel } from '@/test/fixtures/scripted-model';
import { text, toolEngine, toolUse } from '@/test/tool-harness';

import { decideCall, DecisionError } from './decide';
import { driveRun } from './drive-run';
import { resumeLapsedRuns, startRun } from './engine';
import { finish } from './finish';
import { LeaseLost, transitionRun } from './run-state';

/**
 * Races: two tabs, two instances, a stalled instance. Each test ends with the invariant: the
 * stored conversation is a valid Messages API history and the run ended.
 */

type Env = Awaited<ReturnType<typeof toolEngine>>;

/** The fixture's tools, with `slow` marked read-only by its (trusted) server: safe to re-run. */
const READ_ONLY_SLOW_TOOLS = FIXTURE_TOOLS.map((t) => (t.name === 'slow' ? { ...t, annotations: { readOnlyHint: true } } : t));

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`run engine races on ${kind}`, () => {
    let h: DbHandle;
    /** A second, independent handle on the same database (its own pool on Postgres). */
    let h2: DbHandle;
    let pg: Awaited<ReturnType<typeof clonePostgres>> | undefined;
    const cleanups: (() => Promise<unknown>)[] = [];
    beforeAll(async () => {
      if (kind === 'postgres') {
        pg = await clonePostgres();
        h = pg.handle;
        h2 = await pg.open();
      } else {
        h = await openTestDb(kind);
        h2 = h; // PGlite: one process, one handle
      }
    });
    afterAll(async () => (pg ? pg.close() : h?.close()));
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c().catch((err) => console.error('cleanup failed', err));
    });

    async function engine(opts: Parameters<typeof toolEngine>[1]): Promise<Env> {
      const env = await toolEngine(h, opts);
      cleanups.push(() => env.close());
      return env;
    }
    async function start(env: Env, prompt = 'go') {
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(env.deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: prompt });
      await env.deps.idle();
      return { user, conversation, runId: run.id };
    }
    const decision = (user: { id: string }, call: ToolCallRow, kind: 'allow_once' | 'deny') => ({
      userId: user.id,
      toolCallId: call.id,
      argsHash: call.argsHash,
      decision: kind,
    });

    // ── 1. Approve clicked twice ─────────────────────────────────────────────────────────────
    it('approve clicked twice at once: both succeed, the tool runs exactly once', async () => {
      const env = await engine({ script: [{ blocks: [toolUse('tu_c', 'fx__counter')] }, { blocks: [text('Counted once.')] }] });
      const { user, conversation, runId } = await start(env);
      const [call] = await listConversationToolCalls(h.db, conversation.id);
      expect(call!.status).toBe('pending_approval');

      const [a, b] = await Promise.all([
        decideCall(env.deps, decision(user, call!, 'allow_once')),
        decideCall(env.deps, decision(user, call!, 'allow_once')),
      ]);
      await env.deps.idle();
      expect([a.toolCall.id, b.toolCall.id]).toEqual([call!.id, call!.id]);
      expect([a.resumed, b.resumed].filter(Boolean)).toHaveLength(1); // one of them resumed the run
      expect(env.fixture.state.counter).toBe(1);
      expect(env.fixture.calls.filter((c) => c.name === 'counter')).toHaveLength(1);
      const [done] = await listConversationToolCalls(h.db, conversation.id);
      expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
      expect((await getRun(h.db, runId))!.status).toBe('completed');
      expect(env.model.requests).toHaveLength(2);
      const decided = (await listEventsAfter(h.db, conversation.id, 0)).filter((e) => e.type === 'tool_call.decided');
      expect(decided).toHaveLength(1); // the repeat wrote nothing
      await expectInvariant(h.db, conversation.id, runId);
    });

    // ── 2. Approve and deny from two tabs at once ────────────────────────────────────────────
    it('approve and deny at once from two tabs: exactly one wins, the other is a conflict; the tool ran iff approve won', async () => {
      const outcomes = { approve: 0, deny: 0 };
      // A few rounds, alternating who goes first, so both orders are exercised.
      for (let round = 0; round < 4; round++) {
        const env = await engine({ script: [{ blocks: [toolUse('tu_c', 'fx__counter')] }, { blocks: [text('OK.')] }] });
        const { user, conversation, runId } = await start(env);
        const [call] = await listConversationToolCalls(h.db, conversation.id);
        const first = round % 2 === 0 ? 'allow_once' : 'deny';
        const second = first === 'deny' ? 'allow_once' : 'deny';
        const settled = await Promise.allSettled([
          decideCall(env.deps, decision(user, call!, first)),
          decideCall(env.deps, decision(user, call!, second)),
        ]);
        await env.deps.idle();
        const won = settled.filter((s) => s.status === 'fulfilled');
        const lost = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(DecisionError);
        expect(lost[0]!.reason.kind).toBe('conflict');

        const [final] = await listConversationToolCalls(h.db, conversation.id);
        const approved = final!.status === 'succeeded';
        expect(final!.status).toBe(approved ? 'succeeded' : 'denied');
        const winner = settled[0]!.status === 'fulfilled' ? first : second;
        expect(approved).toBe(winner === 'allow_once');
        expect(env.fixture.state.counter).toBe(approved ? 1 : 0);
        outcomes[approved ? 'approve' : 'deny']++;
        expect((await getRun(h.db, runId))!.status).toBe('completed');
        const history = await expectInvariant(h.db, conversation.id, runId);
        const result = blocksOf(history[2])[0]!;
        expect(result.tool_use_id).toBe('tu_c');
        expect(result.is_error ?? false).toBe(!approved);
      }
      expect(outcomes.approve + outcomes.deny).toBe(4);
    });

    // ── 3. Two decisions on two instances at once ────────────────────────────────────────────
    it('two calls decided on two instances at once: the run resumes once, each tool runs once, one results message', async () => {
      for (let round = 0; round < 3; round++) {
        const env = await engine({
          instanceId: 'instance-a',
          script: [
            { blocks: [text('Two counters.'), toolUse('tu_1', 'fx__counter'), toolUse('tu_2', 'fx__counter')] },
            { blocks: [text('Both counted.')] },
          ],
        });
        // Instance B: its own deps, id and event bus, and (on Postgres) its own connection pool.
        const b = engineDeps(h2, { client: env.model.client, modelName: 'claude-test', tools: env.deps.tools, instanceId: 'instance-b' });
        const { user, conversation, runId } = await start(env);
        const calls = await listConversationToolCalls(h.db, conversation.id);
        expect(calls.map((c) => c.status)).toEqual(['pending_approval', 'pending_approval']);
        expect((await getRun(h.db, runId))!.status).toBe('awaiting_approval');

        const [ra, rb] = await Promise.all([
          decideCall(env.deps, decision(user, calls[0]!, 'allow_once')),
          decideCall(b, decision(user, calls[1]!, 'allow_once')),
        ]);
        await Promise.all([env.deps.idle(), b.idle()]);
        expect([ra.resumed, rb.resumed].filter(Boolean)).toHaveLength(1);

        expect((await getRun(h.db, runId))!).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
        expect(env.fixture.state.counter).toBe(2);
        expect(env.fixture.calls.map((c) => c.name)).toEqual(['counter', 'counter']);
        const done = await listConversationToolCalls(h.db, conversation.id);
        expect(done.map((c) => [c.toolUseId, c.status, c.attempts])).toEqual([
          ['tu_1', 'succeeded', 1],
          ['tu_2', 'succeeded', 1],
        ]);
        expect(env.model.requests).toHaveLength(2);
        const stored = await listMessages(h.db, conversation.id);
        expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
        expect((stored[2]!.content as { tool_use_id: string }[]).map((b) => b.tool_use_id)).toEqual(['tu_1', 'tu_2']);
        const started = (await listEventsAfter(h.db, conversation.id, 0)).filter((e) => e.type === 'tool_call.started');
        expect(started).toHaveLength(2);
        await expectInvariant(h.db, conversation.id, runId);
      }
    });

    // ── 4. Two instances take over the same lapsed run ───────────────────────────────────────
    it('two instances taking over the same lapsed run at once: exactly one claims it; one answer', async () => {
      for (let round = 0; round < 5; round++) {
        const model = await startScriptedModel([{ blocks: [text('The one and only answer.')] }]);
        cleanups.push(() => model.close());
        const dead = engineDeps(h, { client: model.client, modelName: 'claude-test', schedule: () => {}, instanceId: 'dead' });
        const a = engineDeps(h, { client: model.client, modelName: 'claude-test', instanceId: 'rescuer-a' });
        const b = engineDeps(h2, { client: model.client, modelName: 'claude-test', instanceId: 'rescuer-b' });
        const { user, conversation } = await userAndConversation(h);
        const { run } = await startRun(dead, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hi' });
        const current = (await getRun(h.db, run.id))!;
        await updateRunIfVersion(h.db, run.id, current.version, { leaseExpiresAt: new Date(Date.now() - 1000) });

        const [ta, tb] = await Promise.all([resumeLapsedRuns(a, conversation.id), resumeLapsedRuns(b, conversation.id)]);
        await Promise.all([a.idle(), b.idle()]);
        expect(ta + tb).toBe(1);
        const done = (await getRun(h.db, run.id))!;
        expect(done.status).toBe('completed');
        expect(model.requests).toHaveLength(1);
        const stored = await listMessages(h.db, conversation.id);
        expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
        const types = (await listEventsAfter(h.db, conversation.id, 0)).map((e) => e.type);
        expect(types.filter((t) => t === 'run.completed')).toHaveLength(1);
        expect(types.filter((t) => t === 'message.completed')).toHaveLength(1);
        // And neither takes it again once it has ended.
        expect(await resumeLapsedRuns(a, conversation.id)).toBe(0);
        await expectInvariant(h.db, conversation.id, run.id);
      }
    });

    // ── 5. A stale writer ────────────────────────────────────────────────────────────────────
    it('an instance whose lease was taken over can write nothing to the run', async () => {
      const model = await startScriptedModel([{ blocks: [text('Answered by the new owner.')] }]);
      cleanups.push(() => model.close());
      const old = engineDeps(h, { client: model.client, modelName: 'claude-test', schedule: () => {}, instanceId: 'old' });
      const fresh = engineDeps(h2, { client: model.client, modelName: 'claude-test', schedule: () => {}, instanceId: 'new' });
      const { user, conversation } = await userAndConversation(h);
      const { run } = await startRun(old, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'hi' });
      const seen = (await getRun(h.db, run.id))!; // what the old instance last knew: its version, its lease
      expect(seen.leaseOwner).toBe('old');
      const lapsed = (await updateRunIfVersion(h.db, run.id, seen.version, { leaseExpiresAt: new Date(Date.now() - 1000) }))!;
      expect(await resumeLapsedRuns(fresh, conversation.id)).toBe(1);
      const taken = (await getRun(h.db, run.id))!;
      expect(taken.leaseOwner).toBe('new');
      const eventsBefore = (await listEventsAfter(h.db, conversation.id, 0)).length;

      const stale = (r: RunRow) =>
        transitionRun(
          h.db,
          old.events,
          r,
          { step: 42 },
          {
            owner: 'old',
            events: [{ type: 'run.failed', data: { status: 'failed', stopReason: 'stale', usage: { inputTokens: 0, outputTokens: 0 } } }],
            also: async (tx) => {
              await appendMessage(tx, {
                conversationId: conversation.id,
                role: 'assistant',
                content: [{ type: 'text', text: 'stale' }],
                runId: run.id,
              });
            },
          },
        );
      // With the version it knew, with the version it saw while the lease lapsed, and even with
      // the current version: the owner check alone refuses it.
      await expect(stale(seen)).rejects.toBeInstanceOf(LeaseLost);
      await expect(stale(lapsed)).rejects.toBeInstanceOf(LeaseLost);
      await expect(stale(taken)).rejects.toBeInstanceOf(LeaseLost);
      await expect(finish(old, seen, 'failed', { owner: 'old', error: { code: 'internal', message: 'stale' } })).rejects.toBeInstanceOf(
        LeaseLost,
      );
      expect(await renewRunLeases(h.db, [run.id], 'old', new Date(Date.now() + 60_000))).toEqual([]);
      await driveRun(old, run.id); // not the owner: does nothing
      expect(model.requests).toHaveLength(0);

      const after = (await getRun(h.db, run.id))!;
      expect(after).toMatchObject({ version: taken.version, step: taken.step, leaseOwner: 'new', status: 'running' });
      expect(after.leaseExpiresAt!.getTime()).toBe(taken.leaseExpiresAt!.getTime());
      expect((await listMessages(h.db, conversation.id)).map((m) => m.role)).toEqual(['user']);
      expect(await listEventsAfter(h.db, conversation.id, 0)).toHaveLength(eventsBefore);

      // The new owner drives it to the end; afterwards the old one still cannot write.
      await driveRun(fresh, run.id);
      const done = (await getRun(h.db, run.id))!;
      expect(done.status).toBe('completed');
      await expect(stale(done)).rejects.toBeInstanceOf(LeaseLost);
      await expect(finish(old, done, 'cancelled', { owner: 'old' })).rejects.toBeInstanceOf(LeaseLost);
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', version: done.version });
      await expectInvariant(h.db, conversation.id, run.id);
    });

    // A stalled instance, for real: a second process frozen (SIGSTOP) in the middle of a tool call
    // until its lease lapses and this instance takes the run over, then woken (SIGCONT). Needs a
    // second process on the same database: real Postgres only (skipped on PGlite).
    const FROZEN_VARIANTS = [
      // Re-run by the rescuer (trusted read-only), so both instances get the same result.
      { name: 'a trusted read-only tool', tools: READ_ONLY_SLOW_TOOLS, grants: undefined, rescued: { status: 'succeeded', attempts: 2 } },
      // Recorded as unknown by the rescuer; the woken instance then has a real result in hand.
      {
        name: 'a non-idempotent tool',
        tools: undefined,
        grants: { 'fixture-server/*': { autoApprove: true } },
        rescued: { status: 'unknown', attempts: 1 },
      },
    ] as const;
    for (const variant of FROZEN_VARIANTS) {
      describe.skipIf(kind !== 'postgres')(`a frozen instance woken after its run was taken over (${variant.name})`, () => {
        let observed: { before: ToolCallRow; after: ToolCallRow; lateEvents: string[] } | undefined;

        it('cannot write to the run or the conversation when it wakes; the run completes once', async () => {
          const fixture: FixtureServer = await startFixtureServer(variant.tools ? { tools: variant.tools } : {});
          cleanups.push(() => fixture.close());
          const env = await engine({
            fixture,
            instanceId: 'rescuer',
            grants: variant.grants,
            script: [{ blocks: [toolUse('tu_slow', 'fx__slow', { ms: 800 })] }, { blocks: [text('Finished by the rescuer.')] }],
          });
          const { user, conversation } = await userAndConversation(h);
          const child = spawnEngineChild({
            SB_DB_URL: pg!.url,
            SB_MODEL_URL: env.model.url,
            SB_FIXTURE_URL: fixture.url,
            SB_USER_ID: user.id,
            SB_CONVERSATION_ID: conversation.id,
            SB_INSTANCE_ID: 'frozen',
            SB_LEASE_MS: '1500',
            SB_HEARTBEAT_MS: '300',
            SB_GRANTS: JSON.stringify(variant.grants ?? { 'fixture-server/*': {} }),
          });
          cleanups.push(() => child.dispose());
          const runId = (await child.waitFor((e) => e.event === 'started', 'run started', 9000)).runId as string;
          await waitUntil(() => fixture.calls.some((c) => c.name === 'slow'), 'the frozen instance to call the tool');
          child.proc.kill('SIGSTOP');

          await waitUntil(
            async () => (await resumeLapsedRuns(env.deps, conversation.id)) === 1,
            'the lapsed run to be taken over',
            5000,
            100,
          );
          await env.deps.idle();
          const done = (await getRun(h.db, runId))!;
          expect(done).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
          const [before] = await listConversationToolCalls(h.db, conversation.id);
          expect(before).toMatchObject(variant.rescued);
          const messagesBefore = await listMessages(h.db, conversation.id);
          const lastSeq = (await listEventsAfter(h.db, conversation.id, 0)).at(-1)!.seq;
          // The frozen instance's own call has finished on the server meanwhile; its answer waits in the socket.
          await waitUntil(() => fixture.calls[0]!.aborted, 'the first call to end', 3000);

          child.proc.kill('SIGCONT');
          await child.waitFor((e) => e.event === 'idle', 'the woken instance to stop', 8000);
          expect((await child.exited).code).toBe(0);

          // The run and the conversation: untouched (the lease check holds).
          const after = (await getRun(h.db, runId))!;
          expect(after).toMatchObject({ status: 'completed', version: done.version, leaseOwner: null });
          expect(await listMessages(h.db, conversation.id)).toEqual(messagesBefore);
          expect(env.model.requests).toHaveLength(2);
          const history = await expectInvariant(h.db, conversation.id, runId);
          expect(blocksOf(history[2])[0]!.is_error ?? false).toBe(variant.rescued.status === 'unknown');

          const [callAfter] = await listConversationToolCalls(h.db, conversation.id);
          const lateEvents = (await listEventsAfter(h.db, conversation.id, lastSeq)).map((e) => e.type);
          observed = { before: before!, after: callAfter!, lateEvents };
        });

        // Tool call writes are lease-guarded too (updateToolCallIfLeased): the woken instance can
        // neither overwrite the rescuer's final row nor append events after run.completed.
        it('writes nothing to the tool call or the event log either', () => {
          expect(observed).toBeDefined();
          if (!observed) return;
          expect(observed.lateEvents).toEqual([]);
          expect(observed.after.version).toBe(observed.before.version);
          expect(observed.after.status).toBe(observed.before.status);
        });
      });
    }
  });
}
