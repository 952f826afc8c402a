import { unstable_doesMiddlewareMatch } from 'next/experimental/testing/server';
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';

import { config, proxy } from '@/proxy';

// proxy.ts is the request entry of the app; it lives at the root, its test here with the HTTP rules.
const request = (url: string, headers: Record<string, string> = {}) =>
  new NextRequest(url, { headers: { host: new URL(url).host, ...headers } });

describe('proxy', () => {
  it('DNS rebinding: runs for pages and API alike, prefetches included', () => {
    for (const url of ['/', '/c/123', '/account', '/sign-in', '/api/conversations', '/api/auth/csrf', '/api/account/export']) {
      expect(unstable_doesMiddlewareMatch({ config, url }), url).toBe(true);
      expect(unstable_doesMiddlewareMatch({ config, url, headers: { 'next-router-prefetch': '1', purpose: 'prefetch' } }), url).toBe(true);
    }
    expect(unstable_doesMiddlewareMatch({ config, url: '/_next/static/chunks/app.js' })).toBe(false);
  });

  it('DNS rebinding: a request addressed to another host name is refused with a clear error', async () => {
    const api = proxy(request('http://evil.example:3000/api/conversations', { origin: 'http://evil.example:3000' }));
    expect(api.status).toBe(403);
    const body = await api.json();
    expect(body.error.code).toBe('forbidden:host');
    expect(body.error.message).toMatch(/answers to localhost, 127\.0\.0\.1 and \[::1\] only, not to "evil\.example:3000"/);
    const page = proxy(request('http://evil.example:3000/'));
    expect(page.status).toBe(403);
    expect(await page.text()).toMatch(/set APP_URL/);
  });

  it('lets localhost through, with the CSP on pages only', () => {
    const page = proxy(request('http://localhost:3000/'));
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toMatch(/script-src 'self' 'nonce-/);
    expect(page.headers.get('Content-Security-Policy')).toMatch(/worker-src 'self'(;|$)/);
    // Forms post to our own routes only; single sign-on leaves by a navigation (sso-buttons.tsx).
    expect(page.headers.get('Content-Security-Policy')).toMatch(/form-action 'self';/);
    const api = proxy(request('http://127.0.0.1:3000/api/conversations'));
    expect(api.status).toBe(200);
    expect(api.headers.get('Content-Security-Policy')).toBeNull();
  });

  it("gives the OAuth consent page (issue 25) frame-ancestors 'none': another site cannot frame it to steal the Allow click", () => {
    const consent = proxy(request('http://localhost:3000/oauth/authorize?client_id=x&response_type=code'));
    expect(consent.headers.get('Content-Security-Policy')).toMatch(/frame-ancestors 'none'/);
    expect(unstable_doesMiddlewareMatch({ config, url: '/oauth/authorize' })).toBe(true);
  });

  it('sends the CSP on prefetches too: a prefetched document may be shown as the page', () => {
    const prefetches: Record<string, string>[] = [
      { purpose: 'prefetch' },
      { 'sec-purpose': 'prefetch' },
      { 'next-router-prefetch': '1', rsc: '1' },
    ];
    for (const headers of prefetches) {
      const prefetch = proxy(request('http://localhost:3000/c/123', headers));
      expect(prefetch.status).toBe(200);
      expect(prefetch.headers.get('Content-Security-Policy'), JSON.stringify(headers)).toMatch(
        /script-src 'self' 'nonce-[^']+' 'strict-dynamic'/,
      );
    }
  });
});
