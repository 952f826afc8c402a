import { expect, test } from '@playwright/test';

import { appOrigin, DEMO_CLOSING, jsonWrite, signedInUser, waitForIdle } from './helpers';

test("one user cannot see, change or follow another user's conversation", async ({ browser, baseURL }) => {
  const origin = appOrigin(baseURL);
  const contextA = await browser.newContext({ baseURL });
  const contextB = await browser.newContext({ baseURL });
  try {
    await signedInUser(contextA, origin, 'owner');
    await signedInUser(contextB, origin, 'intruder');
    const a = contextA.request;
    const b = contextB.request;

    // A's conversation, with a finished turn (so it has messages and events to leak).
    const title = `Private plans ${Date.now()}`;
    const created = await a.post('/api/conversations', { headers: jsonWrite(origin), data: { title } });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const sent = await a.post(`/api/conversations/${id}/messages`, {
      headers: jsonWrite(origin),
      data: { text: 'secret text for A only' },
    });
    expect(sent.status()).toBe(202);
    await waitForIdle(a, id);

    await test.step('every API route answers 404 to B, as for an id that does not exist', async () => {
      const attempts = {
        get: await b.get(`/api/conversations/${id}`),
        patch: await b.patch(`/api/conversations/${id}`, { headers: jsonWrite(origin), data: { title: 'taken over' } }),
        delete: await b.delete(`/api/conversations/${id}`, { headers: jsonWrite(origin) }),
        message: await b.post(`/api/conversations/${id}/messages`, { headers: jsonWrite(origin), data: { text: 'hello from B' } }),
        events: await b.get(`/api/conversations/${id}/events?after=0`),
        cancel: await b.post(`/api/conversations/${id}/cancel`, { headers: jsonWrite(origin), data: {} }),
      };
      for (const [what, res] of Object.entries(attempts)) {
        expect(res.status(), `${what} as B`).toBe(404);
        const body = (await res.json()) as { error: { code: string } };
        expect(body.error.code, `${what} as B`).toBe('not_found:conversation');
        expect(await res.text()).not.toContain('secret text');
      }
      // Same answer as for an id nobody has.
      const missing = await b.get('/api/conversations/00000000-0000-4000-8000-000000000000');
      expect(missing.status()).toBe(404);
    });

    await test.step('B lists nothing of A, in the API and in the sidebar', async () => {
      const list = (await (await b.get('/api/conversations')).json()) as { conversations: { id: string }[] };
      expect(list.conversations.map((c) => c.id)).not.toContain(id);
      expect(list.conversations).toHaveLength(0);

      const page = await contextB.newPage();
      await page.goto('/');
      const sidebar = page.getByRole('complementary', { name: 'Conversations' });
      await expect(sidebar.getByText('No conversations yet.')).toBeVisible();
      await expect(sidebar.getByRole('link', { name: title })).toHaveCount(0);

      const res = await page.goto(`/c/${id}`);
      expect(res?.status()).toBe(404);
      await expect(page.getByText('This page could not be found.')).toBeVisible();
      await expect(page.getByText('secret text for A only')).toHaveCount(0);
      await expect(page.getByTestId('user-message')).toHaveCount(0);
      await page.close();
    });

    await test.step("A's conversation is untouched by B's attempts", async () => {
      const res = await a.get(`/api/conversations/${id}`);
      expect(res.status()).toBe(200);
      const view = (await res.json()) as { title: string; messages: { role: string }[] };
      expect(view.title).toBe(title);
      expect(view.messages.map((m) => m.role)).toEqual(['user', 'assistant']);

      const page = await contextA.newPage();
      await page.goto(`/c/${id}`);
      await expect(page.getByTestId('user-message')).toHaveText('secret text for A only');
      await expect(page.getByTestId('assistant-message')).toContainText(DEMO_CLOSING);
      await expect(page.getByRole('complementary', { name: 'Conversations' }).getByRole('link', { name: title })).toBeVisible();
      await page.close();
    });
  } finally {
    await contextA.close();
    await contextB.close();
  }
});
