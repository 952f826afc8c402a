import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';

import { FIXTURE_API_KEY, FIXTURE_API_KEY_HEADER, TASKS_FIXTURE_STATE_URL, TASKS_FIXTURE_URL } from './fixtures/ports';
import { appOrigin, conversationWithTools, jsonWrite, sendWithEnter, signedInUser, waitForIdle } from './helpers';

// MCP Tasks in Chromium: the task server (test/fixtures/task-server.ts) served beside the e2e
// fixture runs `long_job` as a task. The demo model calls it; the card shows "Running on the
// server" with the server's progress live, and the answer quotes the task's result. Stop cancels
// the task on the server (its state, read through the fixture's test control, says so).

const SHOTS_DIR = path.resolve('screenshots');

async function shoot(page: Page, name: string) {
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS_DIR, `tasks-${name}.png`), fullPage: false });
}

async function conversationWithTaskServer(page: Page, origin: string): Promise<string> {
  const added = await page.request.post('/api/servers', {
    headers: jsonWrite(origin),
    data: { name: 'Jobs', namespace: 'jobs', url: TASKS_FIXTURE_URL, headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY } },
  });
  expect(added.status(), await added.text()).toBe(201);
  const { server } = (await added.json()) as { server: { id: string; tools: { name: string; fingerprint: string }[] } };
  const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
  const enabled = await page.request.post(`/api/servers/${server.id}/enable`, { headers: jsonWrite(origin), data: { tools } });
  expect(enabled.status(), await enabled.text()).toBe(200);
  return conversationWithTools(page, origin, [`server:${server.id}/*`]);
}

interface FixtureTask {
  status: string;
  label?: string;
  cancelled: boolean;
}

async function fixtureTask(page: Page, label: string): Promise<FixtureTask | undefined> {
  const res = await page.request.get(TASKS_FIXTURE_STATE_URL, { headers: { [FIXTURE_API_KEY_HEADER]: FIXTURE_API_KEY } });
  expect(res.status()).toBe(200);
  return ((await res.json()) as FixtureTask[]).find((t) => t.label === label);
}

/** Sends the call line and allows it once (the tool is unannotated: it asks). */
async function callAndAllow(page: Page, line: string) {
  await sendWithEnter(page, line);
  const approval = page.getByTestId('approval-card');
  await expect(approval).toBeVisible();
  await approval.getByRole('button', { name: 'Allow once' }).click();
}

test('a 20-second task shows its progress live on the card and its result reaches the answer', async ({ page, baseURL }) => {
  test.setTimeout(60_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'tasks-long');
  const id = await conversationWithTaskServer(page, origin);

  const label = `report-${Date.now()}`;
  await callAndAllow(page, `call jobs__long_job {"label": "${label}", "durationMs": 20000}`);
  const card = page.getByTestId('tool-call').first();
  const status = card.getByTestId('task-status');
  await expect(status).toContainText('Running on the server — 40% done', { timeout: 15_000 });
  await expect(card).toHaveAttribute('data-status', 'executing');
  await shoot(page, 'running');

  await waitForIdle(page.request, id, 30_000);
  await expect(card).toHaveAttribute('data-status', 'succeeded');
  await expect(status).toHaveText('Ran as a task on the server');
  // The demo model quotes the result in its answer.
  await expect(page.getByText(`jobs__long_job returned: The ${label} finished after 5 steps.`)).toBeVisible();
  expect(await fixtureTask(page, label)).toMatchObject({ status: 'completed', cancelled: false });
  await shoot(page, 'done');
});

test('Stop cancels the task on the server', async ({ page, baseURL }) => {
  test.setTimeout(30_000);
  const origin = appOrigin(baseURL);
  await signedInUser(page.context(), origin, 'tasks-stop');
  const id = await conversationWithTaskServer(page, origin);

  const label = `stopped-${Date.now()}`;
  await callAndAllow(page, `call jobs__long_job {"label": "${label}", "durationMs": 30000}`);
  const card = page.getByTestId('tool-call').first();
  await expect(card.getByTestId('task-status')).toContainText('Running on the server');
  await page.getByRole('button', { name: 'Stop' }).click();

  await waitForIdle(page.request, id);
  await expect(card).toHaveAttribute('data-status', 'cancelled');
  await expect(card.getByTestId('task-status')).toHaveText('The task was cancelled on the server');
  await expect.poll(async () => fixtureTask(page, label)).toMatchObject({ status: 'cancelled', cancelled: true });
  await shoot(page, 'stopped');
});
