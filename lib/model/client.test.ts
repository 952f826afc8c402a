import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { startLoopback } from '@/test/fixtures/model-loopback';

import { createModelClient, demoDelayMs, getModelConfig } from './client';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('getModelConfig', () => {
  it('is the demo model when neither a key nor a base URL is set', () => {
    expect(getModelConfig({})).toEqual({ kind: 'demo', model: 'demo', label: 'Demo model (offline)' });
    // Blank values (KEY= in a .env file) count as unset.
    expect(getModelConfig({ ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '  ' }).kind).toBe('demo');
    // A model name alone does not switch to the real API.
    expect(getModelConfig({ ANTHROPIC_MODEL: 'claude-opus-4-1' }).kind).toBe('demo');
  });

  it('is anthropic with the default model when an API key is set', () => {
    expect(getModelConfig({ ANTHROPIC_API_KEY: 'sk-ant-x' })).toEqual({
      kind: 'anthropic',
      model: 'claude-sonnet-4-5',
      label: 'claude-sonnet-4-5',
    });
  });

  it('is anthropic when only a base URL is set, and honours ANTHROPIC_MODEL', () => {
    expect(getModelConfig({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_MODEL: 'claude-haiku-4-5' })).toEqual({
      kind: 'anthropic',
      model: 'claude-haiku-4-5',
      label: 'claude-haiku-4-5',
    });
  });

  it('reads process.env by default', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-from-env');
    vi.stubEnv('ANTHROPIC_MODEL', 'claude-from-env');
    expect(getModelConfig()).toMatchObject({ kind: 'anthropic', model: 'claude-from-env' });
  });
});

describe('createModelClient', () => {
  it('builds a demo client that never leaves the process', async () => {
    const client = createModelClient({});
    expect(client).toBeInstanceOf(Anthropic);
    expect(client.baseURL).toBe('http://demo.model.invalid');
    expect(client.maxRetries).toBe(0);
    const message = await client.messages.create({
      model: 'demo',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text' });
  });

  it('builds a real client from the given env only, ignoring process.env', () => {
    vi.stubEnv('ANTHROPIC_BASE_URL', 'http://127.0.0.1:1/should-not-be-used');
    const client = createModelClient({ ANTHROPIC_API_KEY: 'sk-ant-given' });
    expect(client.baseURL).toBe('https://api.anthropic.com');
    expect(client.apiKey).toBe('sk-ant-given');
    // The SDK's silent retries are off: the engine retries where the person is told (lib/agent/model-retry.ts).
    expect(client.maxRetries).toBe(0);
    expect(createModelClient({ ANTHROPIC_API_KEY: 'k' }, { maxRetries: 5 }).maxRetries).toBe(5);
  });

  it('uses a placeholder key when only a base URL is set', () => {
    const client = createModelClient({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/gateway' });
    expect(client.baseURL).toBe('http://127.0.0.1:9/gateway');
    expect(client.apiKey).toBeTruthy();
  });

  it('talks to ANTHROPIC_BASE_URL with the key and the anthropic-version header', async () => {
    const server = await startLoopback(200, {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'from loopback' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 2 },
    });
    try {
      const env = { ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: 'sk-ant-loopback', ANTHROPIC_MODEL: 'claude-test' };
      const client = createModelClient(env, { maxRetries: 0 });
      const message = await client.messages.create({
        model: getModelConfig(env).model,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(message.content[0]).toMatchObject({ text: 'from loopback' });
      const [request] = server.received;
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v1/messages');
      expect(request.headers['anthropic-version']).toBeTruthy();
      expect(`${request.headers.authorization} ${request.headers['x-api-key']}`).toContain('sk-ant-loopback');
      expect(JSON.parse(request.body)).toMatchObject({ model: 'claude-test', max_tokens: 10 });
    } finally {
      await server.close();
    }
  });
});

describe('DEMO_MODEL_DELAY_MS', () => {
  it('defaults to 25 ms and accepts non-negative integers', () => {
    expect(demoDelayMs({})).toBe(25);
    expect(demoDelayMs({ DEMO_MODEL_DELAY_MS: '' })).toBe(25);
    expect(demoDelayMs({ DEMO_MODEL_DELAY_MS: '0' })).toBe(0);
    expect(demoDelayMs({ DEMO_MODEL_DELAY_MS: ' 120 ' })).toBe(120);
  });

  it('rejects anything else with an error naming the variable and what is allowed', () => {
    for (const bad of ['-1', '1.5', 'fast', '1e3', '99999999999999999999']) {
      expect(() => createModelClient({ DEMO_MODEL_DELAY_MS: bad })).toThrow(/DEMO_MODEL_DELAY_MS must be a non-negative integer/);
    }
  });

  it('is refused even when the real API is configured: the configuration is checked as a whole (lib/config)', () => {
    expect(() => createModelClient({ ANTHROPIC_API_KEY: 'k', DEMO_MODEL_DELAY_MS: 'nonsense' })).toThrow(/DEMO_MODEL_DELAY_MS/);
  });
});
