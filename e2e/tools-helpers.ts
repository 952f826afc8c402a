import { expect, type APIRequestContext, type Page } from '@playwright/test';

import { jsonWrite } from './helpers';

/**
 * Tools are off in a conversation until the person switches them on (only first-party read-only
 * tools are on by default). These do what the Tools panel does: a same-origin `PUT
 * /api/conversations/:id/grants` from the page, so the grant belongs to this browser's session.
 * A tool is named by its scope (`tool:<serverId>/<tool>`, `server:<serverId>/*`) or, for
 * convenience, by the name the model sees (`notes__create`), looked up in `GET …/tools`.
 */

type Answer = { status: number; text: string };

async function pageFetch(page: Page, url: string, init: { method: string; body?: unknown }): Promise<Answer> {
  return page.evaluate(
    async ({ url, method, body }) => {
      const res = await fetch(url, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    },
    { url, method: init.method, body: init.body },
  );
}

interface ToolsView {
  servers: Array<{ id: string; namespace: string; tools: Array<{ name: string; scope: string }> }>;
}

/** The scope of a tool named as the model sees it (`<namespace>__<tool>`); scopes pass through. */
async function scopeOf(page: Page, conversationId: string, nameOrScope: string): Promise<string> {
  if (/^(tool|server):/.test(nameOrScope)) return nameOrScope;
  const cut = nameOrScope.indexOf('__');
  const [namespace, tool] = [nameOrScope.slice(0, cut), nameOrScope.slice(cut + 2)];
  const res = await pageFetch(page, `/api/conversations/${conversationId}/tools`, { method: 'GET' });
  expect(res.status, res.text).toBe(200);
  const view = JSON.parse(res.text) as ToolsView;
  const found = view.servers.find((s) => s.namespace === namespace)?.tools.find((t) => t.name === tool);
  expect(found, `no tool ${nameOrScope} in the conversation's tools`).toBeTruthy();
  return found!.scope;
}

/** Switches a tool (or a server) on in the conversation; the page must be on the app's origin. */
export async function enableTool(page: Page, conversationId: string, scope: string, opts: { autoApprove?: boolean } = {}): Promise<void> {
  const body = { scope: await scopeOf(page, conversationId, scope), enabled: true, ...opts };
  const res = await pageFetch(page, `/api/conversations/${conversationId}/grants`, { method: 'PUT', body });
  expect(res.status, res.text).toBe(200);
}

/**
 * A new, empty conversation with these tools switched on, opened in the page: the first message
 * is then sent from its composer (instead of from `/`, which creates the conversation on send).
 */
export async function conversationWithTools(page: Page, tools: string[]): Promise<string> {
  if (!page.url().startsWith('http')) await page.goto('/');
  const created = await pageFetch(page, '/api/conversations', { method: 'POST', body: {} });
  expect(created.status, created.text).toBe(201);
  const { id } = JSON.parse(created.text) as { id: string };
  for (const tool of tools) await enableTool(page, id, tool);
  await page.goto(`/c/${id}`);
  await expect(page.locator('#composer')).toBeEnabled();
  return id;
}

/** The same over a Playwright request context (its cookies: the same session as its browser context). */
export async function enableToolViaApi(request: APIRequestContext, origin: string, conversationId: string, scope: string): Promise<void> {
  const res = await request.put(`/api/conversations/${conversationId}/grants`, {
    headers: jsonWrite(origin),
    data: { scope, enabled: true },
  });
  expect(res.status(), await res.text()).toBe(200);
}
