import { expect, test } from '@playwright/test';

import { appOrigin, jsonWrite, signedInUser, waitForIdle } from './helpers';

test('search finds conversations by title and by what was written in them, and clearing it brings the list back', async ({
  page,
  context,
  baseURL,
}) => {
  const origin = appOrigin(baseURL);
  await signedInUser(context, origin, 'search');
  const request = context.request;
  const lisbon = await (await request.post('/api/conversations', { headers: jsonWrite(origin), data: { title: 'Lisbon trip' } })).json();
  const packing = await (await request.post('/api/conversations', { headers: jsonWrite(origin), data: {} })).json();
  const sent = await request.post(`/api/conversations/${packing.id}/messages`, {
    headers: jsonWrite(origin),
    data: { text: 'Remember to pack the passport, the charger and sunscreen' },
  });
  expect(sent.status()).toBe(202);
  await waitForIdle(request, packing.id);

  await page.goto('/');
  const sidebar = page.getByRole('complementary', { name: 'Conversations' });
  const search = sidebar.getByRole('searchbox', { name: 'Search conversations' });
  await search.fill('PASSPORT');
  const results = sidebar.getByRole('navigation', { name: 'Search results' });
  await expect(results.getByRole('status')).toHaveText('1 found');
  const hit = results.getByRole('link');
  await expect(hit).toHaveAttribute('href', `/c/${packing.id}`);
  await expect(hit).toContainText('pack the passport, the charger');

  await search.fill('lisbon');
  await expect(results.getByRole('link')).toHaveAttribute('href', `/c/${lisbon.id}`);
  await search.fill('nothing like this anywhere');
  await expect(results.getByRole('status')).toHaveText('Nothing found');

  await search.press('Escape');
  await expect(results).toHaveCount(0);
  await expect(sidebar.getByRole('link', { name: 'Lisbon trip' })).toBeVisible();
});
