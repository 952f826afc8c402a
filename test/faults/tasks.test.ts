import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { listMessages } from '@/db/queries/messages';
import { listConversationToolCalls } from '@/db/queries/tool-calls';
import { toMessageParams } from '@/lib/agent/history';
import { expectValidHistory, waitUntil } from '@/test/fixtures/fault-kit';
import { startTaskServer, type TaskServer } from '@/test/fixtures/task-server';

import { missingBuild, startApp, type AppProcess } from './harness/app-process';
import { conversationOf, newConversation, sendMessage, signUp, type Person } from './harness/client';
import { freshPostgres, instanceEnv, type FaultDatabase } from './harness/environment';
import { addServer, grantServer, say, scriptedPeer, storedText, useTool, type ScriptedPeer } from './harness/peers';

/**
 * MCP Tasks and a dead app: a `next start` instance is killed (SIGKILL, the whole process group)
 * while a tool it called runs as a task on the server, and started again. The run is taken over
 * once its lease lapses and follows the same task id to its end: the run ends with the task's
 * result, and the tool was called once.
 */

const PORTS = { app: 3221, model: 3223 };
const base = process.env.DATABASE_URL;
if (!base) console.warn('[faults] tasks across a restart: skipped, DATABASE_URL is not set (CI sets it).');

describe.skipIf(!base)('a task that outlives its app process', () => {
  let db: FaultDatabase;
  let model: ScriptedPeer;
  let tasks: TaskServer;
  let app: AppProcess;
  let person: Person;
  let serverId: string;

  beforeAll(async () => {
    const missing = missingBuild();
    if (missing) throw new Error(`The fault suite needs a production build: ${missing}.`);
    [db, model, tasks] = await Promise.all([freshPostgres(base!), scriptedPeer(PORTS.model), startTaskServer()]);
    app = await startApp('A', PORTS.app, instanceEnv('A', db, model.url));
    person = await signUp(app);
    const server = await addServer(app, person, { name: 'Jobs', url: tasks.url, trust: 'trusted' });
    expect(server.status, server.lastError ?? '').toBe('connected');
    serverId = server.id;
  }, 120_000);

  afterAll(async () => {
    await app?.kill();
    await Promise.all([model?.close(), tasks?.close()]);
    await db?.close();
  }, 30_000);

  it('killed mid-task and started again, the app follows the same task and ends the run with its result', async () => {
    const id = await newConversation(app, person);
    await grantServer(app, person, id, serverId, true);
    model.script('task', [
      useTool('tu_job', 'jobs__long_job', { label: 'nightly report', durationMs: 8000 }, 'Starting the job.'),
      say('The nightly report is ready.'),
    ]);
    const { runId } = await sendMessage(app, person, id, '[task] run the nightly report');

    await waitUntil(
      async () => (await listConversationToolCalls(db.handle!.db, id))[0]?.task != null,
      'the task to be stored on the call',
      20_000,
      100,
    );
    const [stored] = await listConversationToolCalls(db.handle!.db, id);
    const record = tasks.tasks.get(stored!.task!.taskId)!;
    expect(record.task.status).toBe('working');

    await app.kill();
    await app.restart();
    // Reading the conversation takes a lapsed run over (activeRunOf); then it runs on its own.
    await waitUntil(
      async () => (await conversationOf(app, person, id)).lastRun?.status === 'completed',
      'the run to end after the restart',
      40_000,
      500,
    );

    const view = await conversationOf(app, person, id);
    expect(view.lastRun).toMatchObject({ id: runId, status: 'completed' });
    expect(storedText(view, runId)).toBe('Starting the job.The nightly report is ready.');
    const [call] = await listConversationToolCalls(db.handle!.db, id);
    expect(call).toMatchObject({ status: 'succeeded', attempts: 1, isError: false });
    expect(call!.task).toMatchObject({ taskId: record.task.taskId, status: 'completed' });
    // Called once (as a task); after the restart it was followed, not called again, nor cancelled.
    expect(tasks.calls.filter((c) => c.name === 'long_job')).toEqual([{ name: 'long_job', asTask: true }]);
    expect(record.cancelledAt).toBeUndefined();
    // The model got the task's result as the tool's result.
    const toModel = JSON.stringify(model.requestsOf('task')[1]!.body.messages.at(-1));
    expect(toModel).toContain('The nightly report finished after 5 steps.');
    expectValidHistory(toMessageParams(await listMessages(db.handle!.db, id)));
  });
});
