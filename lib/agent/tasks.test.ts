import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { getRun, updateRunIfVersion } from '@/db/queries/runs';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { staticGrants } from '@/lib/consent/grant-source';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, recordEvents, userAndConversation } from '@/test/engine-harness';
import { clonePostgres, expectInvariant, spawnEngineChild, waitUntil } from '@/test/fixtures/fault-kit';
import { startScriptedModel, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { startTaskServer, type TaskServer } from '@/test/fixtures/task-server';
import { loopbackFetch } from '@/test/loopback-fetch';
import { text, toolUse } from '@/test/tool-harness';

import { cancelRun, resumeLapsedRuns, startRun } from './engine';
import type { ToolHost } from './tool-host';

/**
 * MCP Tasks in the run engine, against a real task server over HTTP on 127.0.0.1: a call the
 * server runs as a task is followed to its end and its result enters the history like any other;
 * its status reaches the page live; Stop cancels it on the server; a failed task is an error result.
 */

type Block = Anthropic.ContentBlockParam & Record<string, unknown>;

const AUTO = { 'tasks/*': { autoApprove: true } };

for (const { kind, available } of TEST_DATABASES) {
  describe.skipIf(!available)(`tasks on ${kind}`, () => {
    let h: DbHandle;
    let tasks: TaskServer;
    const closers: (() => Promise<void>)[] = [];
    beforeAll(async () => {
      h = await openTestDb(kind);
      tasks = await startTaskServer({ durationMs: 1500 });
    });
    afterAll(async () => {
      for (const close of closers) await close();
      await tasks?.close();
      await h?.close();
    });

    async function engine(
      script: ScriptedReply[],
      db: DbHandle = h,
      instanceId = 'test-instance',
      timeoutMs = 5000,
      lease: { heartbeatMs?: number } = {},
    ) {
      const model = await startScriptedModel(script);
      closers.push(() => model.close());
      const server: McpServerConfig = {
        id: 'tasks',
        namespace: 'tk',
        displayName: 'Task server',
        url: tasks.url,
        trust: 'trusted',
        trustContent: true,
        timeoutMs,
      };
      const host: ToolHost = {
        gateway: createMcpGateway({ fetch: loopbackFetch }),
        serversFor: async () => [server],
        grants: staticGrants(AUTO),
      };
      const deps = engineDeps(db, { client: model.client, modelName: 'claude-test', tools: host, instanceId, ...lease });
      const { user, conversation } = await userAndConversation(db);
      const heard = await recordEvents(deps.bus, conversation.id);
      closers.push(async () => heard.off());
      const start = () => startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      return { deps, model, user, conversation, heard, start };
    }

    it('follows a task to completion: its status goes out live and its result reaches the model like any result', async () => {
      const env = await engine([
        { blocks: [text('Starting the job.'), toolUse('tu_job', 'tk__long_job', { label: 'report' })] },
        { blocks: [text('The job is done.')] },
      ]);
      const { run } = await env.start();
      await env.deps.idle();

      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'succeeded', attempts: 1, isError: false, taskSupport: 'optional' });
      expect(call!.task).toMatchObject({ v: 1, serverId: 'tasks', status: 'completed', statusMessage: '100% done' });
      const record = tasks.tasks.get(call!.task!.taskId)!;
      expect(record.task.status).toBe('completed');
      expect(record.polls).toBeGreaterThan(1);
      // Called once, as a task; followed by tasks/get, never called again.
      expect(tasks.calls.filter((c) => c.name === 'long_job')).toEqual([{ name: 'long_job', asTask: true }]);

      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'tu_job' });
      expect(result.is_error ?? false).toBe(false);
      expect(JSON.stringify(result.content)).toContain('The report finished after 5 steps.');
      // Wrapped as any server's result is (the model can tell tool output from instructions).
      expect(JSON.stringify(result.content)).toContain('Task server');

      // Stored: the task event; live: each status on the way.
      const stored = (await listEventsAfter(h.db, env.conversation.id, 0)).map((e) => e.type);
      expect(stored).toContain('tool_call.task');
      const live = env.heard.seen
        .filter((e) => e.type === 'tool_call.task_status')
        .map((e) => (e.data as { statusMessage: string }).statusMessage);
      expect(live).toContain('40% done');
      expect(live.at(-1)).toBe('100% done');
      await expectInvariant(h.db, env.conversation.id, run.id);
    });

    it('turns a failed task into an error result with the server’s words', async () => {
      const env = await engine([
        { blocks: [toolUse('tu_bad', 'tk__long_job', { label: 'export', fail: true, durationMs: 600 })] },
        { blocks: [text('It failed.')] },
      ]);
      const { run } = await env.start();
      await env.deps.idle();

      expect((await getRun(h.db, run.id))!.status).toBe('completed');
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'errored', isError: true });
      expect(call!.task).toMatchObject({ status: 'failed' });
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'tu_bad', is_error: true });
      expect(JSON.stringify(result.content)).toContain('The export broke at the last step.');
      await expectInvariant(h.db, env.conversation.id, run.id);
    });

    it('cancels the task on the server when the person presses Stop', async () => {
      // No second reply: Stop ends the run before the model is asked again.
      const env = await engine([{ blocks: [toolUse('tu_long', 'tk__long_job', { label: 'long', durationMs: 20_000 })] }]);
      const { run } = await env.start();
      await waitUntil(
        async () => (await listConversationToolCalls(h.db, env.conversation.id))[0]?.task != null,
        'the task to be stored',
        8000,
      );
      const [running] = await listConversationToolCalls(h.db, env.conversation.id);
      const record = tasks.tasks.get(running!.task!.taskId)!;
      expect(record.task.status).toBe('working');

      expect(await cancelRun(env.deps, env.conversation.id)).not.toBeNull();
      await env.deps.idle();

      expect(record.cancelledAt).toBeDefined();
      expect(record.task.status).toBe('cancelled');
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'cancelled' });
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'cancelled', isError: true });
      expect(call!.task).toMatchObject({ status: 'cancelled' });
      await expectInvariant(h.db, env.conversation.id, run.id);
    });

    /** A run whose task runs on the server while its drive here lost the lease (as a stalled or dead process would). */
    async function orphanedTask(leaseExpiresAt: Date) {
      const env = await engine(
        [{ blocks: [toolUse('tu_orphan', 'tk__long_job', { label: 'orphan', durationMs: 20_000 })] }],
        h,
        'stalled',
        5000,
        { heartbeatMs: 100 },
      );
      const { run } = await env.start();
      await waitUntil(
        async () => (await listConversationToolCalls(h.db, env.conversation.id))[0]?.task != null,
        'the task to be stored',
        8000,
      );
      const current = (await getRun(h.db, run.id))!;
      await updateRunIfVersion(h.db, run.id, current.version, { leaseOwner: 'crashed', leaseExpiresAt });
      await env.deps.idle();
      // The follower stopped without cancelling (a lost lease leaves the task for the next owner).
      const [orphan] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(orphan).toMatchObject({ status: 'executing' });
      const record = tasks.tasks.get(orphan!.task!.taskId)!;
      expect(record.task.status).toBe('working');
      expect(record.cancelledAt).toBeUndefined();
      return { env, run, record };
    }

    async function expectCancelledOnServer(
      env: { conversation: { id: string } },
      runId: string,
      record: { cancelledAt?: number; task: { status: string } },
    ) {
      expect(record.cancelledAt).toBeDefined();
      expect(record.task.status).toBe('cancelled');
      expect((await getRun(h.db, runId))!).toMatchObject({ status: 'cancelled' });
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'cancelled', isError: true });
      await expectInvariant(h.db, env.conversation.id, runId);
    }

    it('cancels the task on the server when a run nobody follows any more is stopped (its lease lapsed)', async () => {
      const { env, run, record } = await orphanedTask(new Date(Date.now() - 1000));
      // Stop on a run nobody drives: ended here (cancelRun), and the server is told.
      expect(await cancelRun(env.deps, env.conversation.id)).toMatchObject({ status: 'cancelled' });
      await env.deps.idle();
      await expectCancelledOnServer(env, run.id, record);
    });

    it('cancels the task on the server when the owner taking a run over finds Stop already asked', async () => {
      // Stop lands while the (dead) owner's lease still holds: only recorded on the run.
      const { env, run, record } = await orphanedTask(new Date(Date.now() + 60_000));
      expect(await cancelRun(env.deps, env.conversation.id)).toMatchObject({ status: 'running' });
      expect(record.cancelledAt).toBeUndefined();
      const current = (await getRun(h.db, run.id))!;
      await updateRunIfVersion(h.db, run.id, current.version, { leaseExpiresAt: new Date(Date.now() - 1000) });
      // The next owner's drive sees cancelRequestedAt and goes straight to the end.
      expect(await resumeLapsedRuns(env.deps, env.conversation.id)).toBe(1);
      await env.deps.idle();
      await expectCancelledOnServer(env, run.id, record);
    });

    it('tells the model the server cancelled the task when it did so itself (not the person)', async () => {
      const env = await engine([
        { blocks: [toolUse('tu_gone', 'tk__long_job', { label: 'import', serverCancel: true, durationMs: 600 })] },
        { blocks: [text('The server cancelled it.')] },
      ]);
      const { run } = await env.start();
      await env.deps.idle();

      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'cancelled', isError: true });
      expect(call!.task).toMatchObject({ status: 'cancelled', statusMessage: 'the operator cancelled it' });
      expect(tasks.tasks.get(call!.task!.taskId)!.cancelledAt).toBeUndefined();
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'tu_gone', is_error: true });
      const said = JSON.stringify(result.content);
      expect(said).toContain('Task server cancelled the task itself');
      expect(said).toContain('the operator cancelled it');
      expect(said).not.toContain('the person stopped the run');
      await expectInvariant(h.db, env.conversation.id, run.id);
    });

    it('cancelTask is best effort: an unknown task or a server that is gone is an answer in words, never a throw', async () => {
      const gateway = createMcpGateway({ fetch: loopbackFetch });
      const caller = { userId: 'u', conversationId: 'c' };
      const server = {
        id: 'tasks',
        namespace: 'tk',
        displayName: 'Task server',
        url: tasks.url,
        trust: 'trusted' as const,
        timeoutMs: 2000,
      };
      const unknown = await gateway.cancelTask(server, 'no-such-task', { caller, timeoutMs: 2000 });
      expect(unknown).toMatchObject({ ok: false, message: expect.stringContaining('cancel task no-such-task') });
      const gone = await gateway.cancelTask({ ...server, url: 'http://127.0.0.1:1/mcp' }, 'any', { caller, timeoutMs: 2000 });
      expect(gone).toMatchObject({ ok: false, message: expect.stringContaining('Task server') });
    });

    it('follows a task past the overall limit a plain call has (its timeout × 10): the run is not broken', async () => {
      // 250 ms per request: a plain call would be cut at 2.5 s; the task runs 3 s.
      const env = await engine(
        [{ blocks: [toolUse('tu_slow', 'tk__long_job', { label: 'slow job', durationMs: 3000 })] }, { blocks: [text('Done at last.')] }],
        h,
        'test-instance',
        250,
      );
      const { run } = await env.start();
      await env.deps.idle();
      expect((await getRun(h.db, run.id))!).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'succeeded', isError: false });
      expect(call!.endedAt!.getTime() - call!.startedAt!.getTime()).toBeGreaterThan(2500);
      const result = (env.model.requests[1]!.body.messages.at(-1)!.content as Block[])[0]!;
      expect(JSON.stringify(result.content)).toContain('The slow job finished after 5 steps.');
    });

    it('runs a tool without task support as an ordinary call', async () => {
      const env = await engine([{ blocks: [toolUse('tu_q', 'tk__quick')] }, { blocks: [text('ok')] }]);
      const { run } = await env.start();
      await env.deps.idle();
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'succeeded', task: null, taskSupport: null });
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
    });

    // Needs a second process on the same database: real Postgres only (skipped on PGlite).
    describe.skipIf(kind !== 'postgres')('an engine process killed while its task runs', () => {
      let pg: Awaited<ReturnType<typeof clonePostgres>>;
      beforeAll(async () => {
        pg = await clonePostgres();
      });
      afterAll(async () => pg?.close());

      it('is taken over after its lease lapses and follows the same task to its result, without calling the tool again', async () => {
        const env = await engine([{ blocks: [text('Finished after the takeover.')] }, { blocks: [text('unused')] }], pg.handle, 'rescuer');
        // The doomed process's model asks for the job; the rescuer's answers after its result.
        const doomedModel = await startScriptedModel([
          { blocks: [toolUse('tu_job', 'tk__long_job', { label: 'survivor', durationMs: 3000 })] },
        ]);
        closers.push(() => doomedModel.close());
        const callsBefore = tasks.calls.filter((c) => c.name === 'long_job' && c.asTask).length;
        const child = spawnEngineChild({
          SB_DB_URL: pg.url,
          SB_MODEL_URL: doomedModel.url,
          SB_FIXTURE_URL: tasks.url,
          SB_SERVER_ID: 'tasks',
          SB_NAMESPACE: 'tk',
          SB_SERVER_NAME: 'Task server',
          SB_USER_ID: env.user.id,
          SB_CONVERSATION_ID: env.conversation.id,
          SB_INSTANCE_ID: 'doomed',
          SB_LEASE_MS: '1500',
          SB_HEARTBEAT_MS: '300',
          SB_GRANTS: JSON.stringify(AUTO),
        });
        closers.push(() => child.dispose());
        const started = await child.waitFor((e) => e.event === 'started', 'run started', 9000);
        const runId = started.runId as string;
        await waitUntil(
          async () => (await listConversationToolCalls(pg.handle.db, env.conversation.id))[0]?.task != null,
          'the task to be stored',
          9000,
        );
        const [stored] = await listConversationToolCalls(pg.handle.db, env.conversation.id);
        expect(stored).toMatchObject({ status: 'executing', attempts: 1 });
        const record = tasks.tasks.get(stored!.task!.taskId)!;
        expect(record.task.status).toBe('working');

        child.proc.kill('SIGKILL');
        expect((await child.exited).signal).toBe('SIGKILL');
        await waitUntil(
          async () => (await resumeLapsedRuns(env.deps, env.conversation.id)) === 1,
          'the lapsed run to be taken over',
          6000,
          100,
        );
        await env.deps.idle();

        expect((await getRun(pg.handle.db, runId))!).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
        const [call] = await listConversationToolCalls(pg.handle.db, env.conversation.id);
        expect(call).toMatchObject({ status: 'succeeded', attempts: 1, isError: false });
        expect(call!.task).toMatchObject({ taskId: record.task.taskId, status: 'completed' });
        expect(record.cancelledAt).toBeUndefined();
        // One tools/call for this task: the rescuer followed the task id, it did not call again.
        expect(tasks.calls.filter((c) => c.name === 'long_job' && c.asTask)).toHaveLength(callsBefore + 1);
        const result = (env.model.requests[0]!.body.messages.at(-1)!.content as Block[])[0]!;
        expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'tu_job' });
        expect(JSON.stringify(result.content)).toContain('The survivor finished after 5 steps.');
        await expectInvariant(pg.handle.db, env.conversation.id, runId);
      });
    });
  });
}
