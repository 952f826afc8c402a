import http from 'node:http';
import { expect, test } from '@playwright/test';

/** A raw request to the test server with a Host header of our choosing (a browser cannot set one). */
function requestWithHost(baseURL: string, path: string, host: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(baseURL);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: Number(port), path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('DNS rebinding: a page or API request addressed to another host name is refused', async ({ baseURL }) => {
  const port = new URL(baseURL!).port;
  for (const path of ['/sign-in', '/', '/api/conversations', '/api/auth/csrf']) {
    const res = await requestWithHost(baseURL!, path, `rebind.evil.example:${port}`);
    expect(res.status, path).toBe(403);
    expect(res.body, path).toContain('answers to localhost, 127.0.0.1 and [::1] only');
  }
  const api = await requestWithHost(baseURL!, '/api/conversations', `rebind.evil.example:${port}`);
  expect(JSON.parse(api.body)).toMatchObject({ error: { code: 'forbidden:host' } });
  // The names the app is reached by locally still work.
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
    expect((await requestWithHost(baseURL!, '/sign-in', host)).status, host).toBe(200);
  }
});
