import { describe, expect, it } from 'vitest';

import { trackTimers } from '@/test/fixtures/demo-model-client';

import { createDemoFetch } from './fetch';

// The demo model at the HTTP level: what a host that reads raw SSE (or the
// SDK's parser) actually receives.

const URL_ = 'http://demo.model.invalid/v1/messages';

function post(body: unknown, init: RequestInit = {}): [string, RequestInit] {
  return [URL_, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init }];
}

// Raw wire JSON, inspected field by field below; typing it would only hide typos in the demo's output.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SseEvent = { event: string; data: any };

/** Parses an SSE body strictly: every event must have an `event:` line and JSON data. */
function parseSse(text: string): SseEvent[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .trim()
    .split('\n\n')
    .map((frame) => {
      const lines = frame.split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^event: [a-z_]+$/);
      expect(lines[1]).toMatch(/^data: /);
      const event = lines[0].slice('event: '.length);
      const data = JSON.parse(lines[1].slice('data: '.length));
      expect(data.type).toBe(event);
      return { event, data };
    });
}

describe('createDemoFetch: HTTP surface', () => {
  const demoFetch = createDemoFetch({ delayMs: 0 });

  it('answers 404 in the API error shape for other paths and methods', async () => {
    for (const [url, method] of [
      ['http://demo.model.invalid/v1/models', 'POST'],
      ['http://demo.model.invalid/v1/complete', 'POST'],
      [URL_, 'GET'],
    ]) {
      const res = await demoFetch(url, { method });
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
      expect(body.error.message).toContain('/v1/messages');
    }
  });

  it('accepts any base path ending in /v1/messages', async () => {
    const res = await demoFetch('http://gateway.invalid/anthropic/v1/messages?beta=true', post({ messages: [] })[1]);
    expect(res.status).toBe(200);
  });

  it('rejects a body without a messages array with a 400 naming the field', async () => {
    const missing = await demoFetch(...post({ model: 'demo', max_tokens: 10 }));
    expect(missing.status).toBe(400);
    const body = await missing.json();
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toMatch(/^messages:/);

    const notArray = await demoFetch(...post({ messages: 'hi', max_tokens: 10 }));
    expect((await notArray.json()).error.message).toMatch(/^messages:/);

    const badContent = await demoFetch(...post({ messages: [{ role: 'user', content: 5 }] }));
    expect((await badContent.json()).error.message).toMatch(/^messages\.0\.content:/);

    const notJson = await demoFetch(URL_, { method: 'POST', body: '{nope' });
    expect(notJson.status).toBe(400);
  });

  it('answers 529 overloaded_error for [demo:overloaded]', async () => {
    const res = await demoFetch(...post({ max_tokens: 10, messages: [{ role: 'user', content: 'x [demo:overloaded]' }] }));
    expect(res.status).toBe(529);
    expect(await res.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('returns a JSON Message when stream is not set', async () => {
    const res = await demoFetch(...post({ model: 'm1', max_tokens: 100, messages: [{ role: 'user', content: 'yo' }] }));
    expect(res.headers.get('content-type')).toBe('application/json');
    const message = await res.json();
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'm1',
      stop_reason: 'end_turn',
      stop_sequence: null,
      content: [{ type: 'text' }],
    });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(demoFetch(...post({ messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal }))).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('createDemoFetch: SSE wire format', () => {
  const demoFetch = createDemoFetch({ delayMs: 0 });

  it('streams text in the exact Anthropic event sequence', async () => {
    const res = await demoFetch(...post({ model: 'demo', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(await res.text());

    const names = events.map((e) => e.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(new Set(names.slice(3, -3))).toEqual(new Set(['content_block_delta']));

    const start = events[0].data.message;
    expect(start).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'demo',
      content: [],
      stop_reason: null,
      usage: { output_tokens: 0 },
    });
    expect(start.id).toMatch(/^msg_demo_/);
    expect(start.usage.input_tokens).toBeGreaterThan(0);
    expect(events[2].data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });

    const deltas = events.filter((e) => e.event === 'content_block_delta');
    expect(deltas.every((d) => d.data.delta.type === 'text_delta' && d.data.index === 0)).toBe(true);
    // One word per delta.
    expect(deltas.every((d) => d.data.delta.text.trim().split(/\s+/).length === 1)).toBe(true);
    expect(events.at(-2)!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: deltas.length },
    });
  });

  it('streams tool input as input_json_delta chunks on a tool_use block', async () => {
    const res = await demoFetch(
      ...post({
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'call files__read {"path": "/tmp/a.txt"}' }],
      }),
    );
    const events = parseSse(await res.text());
    const toolStart = events.find((e) => e.event === 'content_block_start' && e.data.index === 1)!;
    expect(toolStart.data.content_block).toMatchObject({ type: 'tool_use', name: 'files__read', input: {} });
    expect(toolStart.data.content_block.id).toMatch(/^toolu_demo_1_/);
    const chunks = events.filter((e) => e.event === 'content_block_delta' && e.data.index === 1).map((e) => e.data.delta);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.type === 'input_json_delta')).toBe(true);
    expect(JSON.parse(chunks.map((c) => c.partial_json).join(''))).toEqual({ path: '/tmp/a.txt' });
    expect(events.at(-2)!.data.delta.stop_reason).toBe('tool_use');
  });

  it('[demo:fail-midstream] errors the body after a few events', async () => {
    const res = await demoFetch(
      ...post({ max_tokens: 100, stream: true, messages: [{ role: 'user', content: '[demo:fail-midstream] go' }] }),
    );
    await expect(res.text()).rejects.toThrow(/dropped in the middle/);
  });
});

describe('createDemoFetch: pacing and abort', () => {
  it('waits delayMs between words, and aborting mid-pause errors the body and clears the timer', async () => {
    const timers = trackTimers();
    try {
      const demoFetch = createDemoFetch({ delayMs: 10_000 });
      const controller = new AbortController();
      const res = await demoFetch(
        ...post({ max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'slow words here' }] }, { signal: controller.signal }),
      );
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      // message_start, ping, content_block_start and the first word come at once.
      for (let i = 0; i < 4; i++) text += decoder.decode((await reader.read()).value);
      expect(text).toContain('"text_delta"');

      const pending = reader.read(); // now waiting out the 10 s pause
      await new Promise((r) => setTimeout(r, 20));
      expect(timers.pending()).toBe(1);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(timers.pending()).toBe(0);
    } finally {
      timers.restore();
    }
  });

  it('cancelling the body (reader gives up) clears the timer too', async () => {
    const timers = trackTimers();
    try {
      const demoFetch = createDemoFetch({ delayMs: 10_000 });
      const res = await demoFetch(...post({ max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'slow words here' }] }));
      const reader = res.body!.getReader();
      for (let i = 0; i < 4; i++) await reader.read();
      void reader.read().catch(() => {});
      await new Promise((r) => setTimeout(r, 20));
      expect(timers.pending()).toBe(1);
      await reader.cancel();
      expect(timers.pending()).toBe(0);
    } finally {
      timers.restore();
    }
  });

  it('refuses a negative or fractional delay', () => {
    expect(() => createDemoFetch({ delayMs: -1 })).toThrow(/delayMs/);
    expect(() => createDemoFetch({ delayMs: 1.5 })).toThrow(/delayMs/);
  });
});
