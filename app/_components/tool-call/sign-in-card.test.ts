import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { sampleToolCallView } from '@/test/sample-tool-call';

import { SignInCard, startSignIn } from './sign-in-card';

const call = sampleToolCallView({
  status: 'awaiting_sign_in',
  signIn: { serverId: 'srv-docs', serverName: 'Docs', scopes: ['files:write'], reason: 'insufficient_scope' },
});

function answer(status: number, body: unknown, type = 'application/json') {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return vi.fn(async (url: string, init: RequestInit) => {
    answer.last = { url, body: JSON.parse(String(init.body)) };
    return new Response(status === 204 ? null : text, { status, headers: { 'Content-Type': type } });
  });
}
answer.last = undefined as undefined | { url: string; body: unknown };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the sign-in card', () => {
  it('says which server needs a sign-in before which tool, and why, with Connect and Cancel', () => {
    const html = renderToStaticMarkup(createElement(SignInCard, { call, onStop: () => {} }));
    expect(html.replace(/<[^>]+>/g, '')).toContain('Docs needs you to sign in before write can run.');
    expect(html).toContain('This tool needs more access than you gave before (files:write).');
    expect(html).toContain('Connect Docs');
    expect(html).toContain('Cancel');
  });

  it('asks the server where to sign in, bringing the person back to this conversation', async () => {
    vi.stubGlobal('fetch', answer(200, { authorizationUrl: 'https://auth.example.test/authorize?x=1' }));
    await expect(startSignIn('srv-docs', 'Docs', '/c/abc')).resolves.toBe('https://auth.example.test/authorize?x=1');
    expect(answer.last).toEqual({ url: '/api/servers/srv-docs/oauth/start', body: { returnTo: '/c/abc' } });
  });

  it('says so in words when signing in is not available, refused, or answered without a usable address', async () => {
    vi.stubGlobal('fetch', answer(404, '<html>Not found</html>', 'text/html'));
    await expect(startSignIn('srv-docs', 'Docs', '/c/abc')).rejects.toThrow('Signing in to Docs is not available on this Switchboard yet.');
    vi.stubGlobal('fetch', answer(404, { error: { code: 'not_found', message: 'No server with id "srv-docs".' } }));
    await expect(startSignIn('srv-docs', 'Docs', '/c/abc')).rejects.toThrow('No server with id "srv-docs".');
    vi.stubGlobal('fetch', answer(200, { authorizationUrl: 'javascript:alert(1)' }));
    await expect(startSignIn('srv-docs', 'Docs', '/c/abc')).rejects.toThrow('Switchboard did not say where to sign in to Docs.');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('fetch failed');
      }),
    );
    await expect(startSignIn('srv-docs', 'Docs', '/c/abc')).rejects.toThrow('Could not reach Switchboard');
  });
});
