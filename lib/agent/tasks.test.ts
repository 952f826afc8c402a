import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DbHandle } from '@/db/connection';
import { listEventsAfter } from '@/db/queries/events';
import { getRun } from '@/db/queries/runs';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { staticGrants } from '@/lib/consent/grant-source';
import { createMcpGateway } from '@/lib/mcp/gateway';
import type { McpServerConfig } from '@/lib/mcp/types';
import { openTestDb, TEST_DATABASES } from '@/test/db';
import { engineDeps, recordEvents, userAndConversation } from '@/test/engine-harness';
import { expectInvariant, waitUntil } from '@/test/fixtures/fault-kit';
import { startScriptedModel, type ScriptedReply } from '@/test/fixtures/scripted-model';
import { startTaskServer, type TaskServer } from '@/test/fixtures/task-server';
import { loopbackFetch } from '@/test/loopback-fetch';
import { text, toolUse } from '@/test/tool-harness';

import { cancelRun, startRun } from './engine';
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

    async function engine(script: ScriptedReply[]) {
      const model = await startScriptedModel(script);
      closers.push(() => model.close());
      const server: McpServerConfig = {
        id: 'tasks',
        namespace: 'tk',
        displayName: 'Task server',
        url: tasks.url,
        trust: 'trusted',
        trustContent: true,
        timeoutMs: 5000,
      };
      const host: ToolHost = {
        gateway: createMcpGateway({ fetch: loopbackFetch }),
        serversFor: async () => [server],
        grants: staticGrants(AUTO),
      };
      const deps = engineDeps(h, { client: model.client, modelName: 'claude-test', tools: host });
      const { user, conversation } = await userAndConversation(h);
      const heard = await recordEvents(deps.bus, conversation.id);
      closers.push(async () => heard.off());
      const start = () => startRun(deps, { conversationId: conversation.id, userId: user.id, sessionId: null, text: 'go' });
      return { deps, model, conversation, heard, start };
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

    it('runs a tool without task support as an ordinary call', async () => {
      const env = await engine([{ blocks: [toolUse('tu_q', 'tk__quick')] }, { blocks: [text('ok')] }]);
      const { run } = await env.start();
      await env.deps.idle();
      const [call] = await listConversationToolCalls(h.db, env.conversation.id);
      expect(call).toMatchObject({ status: 'succeeded', task: null, taskSupport: null });
      expect((await getRun(h.db, run.id))!.status).toBe('completed');
    });
  });
}
