import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { AppError, errorResponse } from './errors';
import { readJson } from './json';
import { assertSameOrigin } from './origin';

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
