import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { AppError, errorResponse } from './errors';
import { hostRefusal, requestedHost } from './host';
import { readJson } from './json';
import { assertSameOrigin, clientKey, trustedProxyHops } from './origin';

const schema = z.object({ text: z.string({ error: 'must be a string' }), n: z.number().int().optional() }).strict();

function post(body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return new Request('http://localhost:3000/api/x', { method: 'POST', body, headers });
}

describe('readJson', () => {
  it('parses and validates', async () => {
    expect(await readJson(post('{"text":"hi","n":2}'), schema)).toEqual({ text: 'hi', n: 2 });
  });

  it('answers malformed JSON with 400 bad_request:json', async () => {
    const err = await readJson(post('{"text":'), schema).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.toJSON().error.code).toBe('bad_request:json');
    expect(err.status).toBe(400);
  });

  it('names the field that is wrong', async () => {
    const err = await readJson(post('{"text":5}'), schema).catch((e) => e);
    expect(err).toMatchObject({ status: 400, field: 'text', message: 'text: must be a string' });
    const extra = await readJson(post('{"text":"a","zzz":1}'), schema).catch((e) => e);
    expect(extra.status).toBe(400);
    expect(extra.message).toMatch(/zzz/);
  });

  it('refuses a body over the limit with 413, declared or streamed', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(5000) });
    expect((await readJson(post(big), schema, { maxBytes: 1000 }).catch((e) => e)).status).toBe(413);
    const lying = post(big, { 'content-type': 'application/json', 'content-length': '10' });
    expect((await readJson(lying, schema, { maxBytes: 1000 }).catch((e) => e)).status).toBe(413);
  });

  it('refuses a body that is not declared as JSON with 415', async () => {
    expect((await readJson(post('{"text":"a"}', { 'content-type': 'text/plain' }), schema).catch((e) => e)).status).toBe(415);
  });
});

describe('assertSameOrigin', () => {
  const req = (origin?: string) =>
    new Request('http://localhost:3000/api/x', { method: 'POST', headers: { host: 'localhost:3000', ...(origin ? { origin } : {}) } });

  it('accepts our own origin and refuses a missing or foreign one', () => {
    expect(() => assertSameOrigin(req('http://localhost:3000'))).not.toThrow();
    expect(() => assertSameOrigin(req())).toThrow(/Origin/);
    expect(() => assertSameOrigin(req('https://evil.example'))).toThrow(/may not write/);
    expect(() => assertSameOrigin(req('http://localhost:3001'))).toThrow();
  });
});

describe('clientKey', () => {
  const from = (forwardedFor?: string) =>
    new Request('http://localhost:3000/api/account', { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

  it('rate limits: a client cannot get a fresh per-client budget by sending its own X-Forwarded-For', () => {
    // `next start` passes the client's own header through: without a trusted proxy it means nothing.
    expect(clientKey(from('10.0.0.1'), {})).toBe(clientKey(from('10.0.0.2'), {}));
    expect(clientKey(from('10.0.0.1'), {})).toBeNull();
    // Behind one proxy that appends the address it saw, a forged entry to its left is ignored.
    expect(clientKey(from('10.0.0.1, 203.0.113.9'), { TRUSTED_PROXIES: '1' })).toBe('203.0.113.9');
    expect(clientKey(from('10.0.0.2, 203.0.113.9'), { TRUSTED_PROXIES: '1' })).toBe('203.0.113.9');
  });

  it('takes the entry written by the outermost trusted proxy, counted from the right', () => {
    expect(clientKey(from('forged, 198.51.100.4, 10.1.0.2'), { TRUSTED_PROXIES: '2' })).toBe('198.51.100.4');
    expect(clientKey(from('198.51.100.4'), { TRUSTED_PROXIES: '2' })).toBeNull(); // did not come through both proxies
    expect(clientKey(from(), { TRUSTED_PROXIES: '1' })).toBeNull();
    expect(trustedProxyHops({})).toBe(0);
    expect(() => trustedProxyHops({ TRUSTED_PROXIES: 'yes' })).toThrow(/TRUSTED_PROXIES must be the number of proxies/);
  });
});

describe('host check', () => {
  it('DNS rebinding: without APP_URL only localhost names are served, on any port', () => {
    for (const host of ['localhost:3000', 'localhost', '127.0.0.1:3201', '[::1]:3000', 'LOCALHOST:80'])
      expect(hostRefusal(host, {})).toBeNull();
    for (const host of ['evil.example', 'evil.example:3000', '192.168.1.20:3000', 'localhost.evil.example', '', null]) {
      expect(hostRefusal(host, {})).toMatch(/answers to localhost, 127\.0\.0\.1 and \[::1\] only/);
    }
  });

  it('DNS rebinding: with APP_URL (or AUTH_URL) only its host is served', () => {
    const env = { APP_URL: 'https://chat.example.com' };
    expect(hostRefusal('chat.example.com', env)).toBeNull();
    expect(hostRefusal('localhost:3000', env)).toMatch(/answers to chat\.example\.com only/);
    expect(hostRefusal('evil.example', env)).toMatch(/Open https:\/\/chat\.example\.com instead/);
    expect(hostRefusal('app.internal:8080', { APP_URL: '', AUTH_URL: 'http://app.internal:8080' })).toBeNull();
  });

  it('reads X-Forwarded-Host only behind a trusted proxy', () => {
    const headers = new Headers({ host: '127.0.0.1:3000', 'x-forwarded-host': 'chat.example.com' });
    expect(requestedHost(headers, {})).toBe('127.0.0.1:3000');
    expect(requestedHost(headers, { TRUSTED_PROXIES: '1' })).toBe('chat.example.com');
  });
});

describe('errorResponse', () => {
  it('maps AppError to its status and hides unexpected errors', async () => {
    const res = errorResponse(new AppError('not_found', 'conversation', 'No conversation.'));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found:conversation', message: 'No conversation.' } });
    const hidden = errorResponse(new Error('secret internals'));
    expect(hidden.status).toBe(500);
    expect(JSON.stringify(await hidden.json())).not.toContain('secret internals');
  });
});
