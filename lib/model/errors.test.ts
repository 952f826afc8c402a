import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';

import { startLoopback, unusedLoopbackURL } from '@/test/fixtures/model-loopback';

import { createModelClient } from './client';
import { describeModelError, redactSecrets } from './errors';

function apiBody(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

function statusError(status: number, type: string, message: string, headers: Record<string, string> = {}) {
  return Anthropic.APIError.generate(status, apiBody(type, message), undefined, new Headers(headers));
}

describe('describeModelError: HTTP statuses', () => {
  it('401 → model_auth, pointing at ANTHROPIC_API_KEY', () => {
    const err = new Anthropic.AuthenticationError(401, apiBody('authentication_error', 'invalid x-api-key'), undefined, new Headers());
    expect(describeModelError(err)).toEqual({
      code: 'model_auth',
      message: 'The model provider rejected the API key (401). Check ANTHROPIC_API_KEY.',
    });
  });

  it('403 → model_forbidden', () => {
    const d = describeModelError(statusError(403, 'permission_error', 'Your key cannot use this model'));
    expect(d.code).toBe('model_forbidden');
    expect(d.message).toContain('(403)');
    expect(d.message).toContain('Your key cannot use this model');
  });

  it('404 → model_not_found, naming ANTHROPIC_MODEL', () => {
    const d = describeModelError(statusError(404, 'not_found_error', 'model: claude-nope'));
    expect(d.code).toBe('model_not_found');
    expect(d.message).toContain('ANTHROPIC_MODEL');
    expect(d.message).toContain('model: claude-nope');
  });

  it('429 → model_rate_limited, with retry-after when given', () => {
    expect(describeModelError(statusError(429, 'rate_limit_error', 'slow down'))).toEqual({
      code: 'model_rate_limited',
      message: 'The model provider is rate-limiting requests (429). Try again shortly.',
    });
    const withWait = describeModelError(statusError(429, 'rate_limit_error', 'slow down', { 'retry-after': '7' }));
    expect(withWait.message).toContain('Try again in 7 seconds');
  });

  it('529 or overloaded_error → model_overloaded', () => {
    expect(describeModelError(statusError(529, 'overloaded_error', 'Overloaded')).code).toBe('model_overloaded');
    // The same error arriving as an SSE `event: error` has no status.
    const midStream = new Anthropic.APIError(undefined, apiBody('overloaded_error', 'Overloaded'), undefined, new Headers());
    expect(describeModelError(midStream).code).toBe('model_overloaded');
  });

  it('other 5xx → model_unavailable', () => {
    for (const status of [500, 502, 503]) {
      const d = describeModelError(statusError(status, 'api_error', 'Internal server error'));
      expect(d).toEqual({
        code: 'model_unavailable',
        message: `The model provider had a server error (${status}). Try again shortly.`,
      });
    }
  });

  it("400 → model_bad_request, including the provider's message", () => {
    const d = describeModelError(statusError(400, 'invalid_request_error', 'messages.1.content: tool_use ids must be unique'));
    expect(d.code).toBe('model_bad_request');
    expect(d.message).toBe('The model provider rejected the request (400): messages.1.content: tool_use ids must be unique.');
  });

  it('an unmapped status → model_error', () => {
    const d = describeModelError(statusError(402, 'billing_error', 'Add credits'));
    expect(d.code).toBe('model_error');
    expect(d.message).toContain('Add credits');
  });
});

describe('describeModelError: connection, stream and abort', () => {
  it('connection errors → model_unreachable with only the host of the base URL', () => {
    const baseURL = 'https://user:hunter2@llm.example.com:8443/v1';
    const d = describeModelError(new Anthropic.APIConnectionError({ message: 'Connection error.' }), { baseURL });
    expect(d.code).toBe('model_unreachable');
    expect(d.message).toContain('Could not reach the model at llm.example.com:8443');
    expect(d.message).not.toContain('hunter2');

    const timeout = describeModelError(new Anthropic.APIConnectionTimeoutError());
    expect(timeout.code).toBe('model_unreachable');
    expect(timeout.message).toMatch(/^Could not reach the model \(the request timed out\)\./);
  });

  it('a user abort → cancelled, not a broken stream', () => {
    expect(describeModelError(new Anthropic.APIUserAbortError()).code).toBe('cancelled');
    expect(describeModelError(new DOMException('aborted', 'AbortError')).code).toBe('cancelled');
  });

  it('a plain error while reading the stream → model_stream_broken', () => {
    const d = describeModelError(new Error('terminated'));
    expect(d.code).toBe('model_stream_broken');
    expect(d.message).toBe("The model's answer was cut off before it finished: terminated.");
  });

  it('an SSE error event other than overload → model_stream_broken with the provider text', () => {
    const err = new Anthropic.APIError(undefined, apiBody('api_error', 'Internal server error'), undefined, new Headers());
    expect(describeModelError(err)).toEqual({
      code: 'model_stream_broken',
      message: "The model's answer was cut off before it finished: Internal server error.",
    });
  });

  it('anything that is not an Error → model_error', () => {
    expect(describeModelError('boom')).toEqual({ code: 'model_error', message: 'The model request failed: boom.' });
    expect(describeModelError(undefined).code).toBe('model_error');
  });
});

describe('describeModelError never shows secrets', () => {
  it('scrubs API keys and bearer tokens from provider text', () => {
    const d = describeModelError(
      statusError(400, 'invalid_request_error', 'bad header Authorization: Bearer sk-ant-api03-SECRETSECRET x-api-key: abc123secret'),
    );
    expect(d.message).not.toContain('SECRETSECRET');
    expect(d.message).not.toContain('abc123secret');
    expect(d.message).toContain('[redacted]');
  });

  it('scrubs the configured key even when it does not look like one', () => {
    expect(redactSecrets('echo: my-custom-key-123', { ANTHROPIC_API_KEY: 'my-custom-key-123' })).toBe('echo: [redacted]');
  });
});

describe('describeModelError with a real SDK client against a loopback provider', () => {
  it('maps a 401 from the provider to model_auth without echoing the key', async () => {
    const server = await startLoopback(401, apiBody('authentication_error', 'invalid x-api-key'));
    try {
      const client = createModelClient({ ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: 'sk-ant-very-secret' }, { maxRetries: 0 });
      const err = await client.messages.create({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
      const d = describeModelError(err, { baseURL: server.baseURL });
      expect(d.code).toBe('model_auth');
      expect(d.message).not.toContain('sk-ant-very-secret');
    } finally {
      await server.close();
    }
  });

  it('maps a streamed 429 from the provider to model_rate_limited', async () => {
    const server = await startLoopback(429, apiBody('rate_limit_error', 'Number of requests exceeded'), { 'retry-after': '3' });
    try {
      const client = createModelClient({ ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: 'k-test' }, { maxRetries: 0 });
      const err = await client.messages
        .stream({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .finalMessage()
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      expect(describeModelError(err)).toEqual({
        code: 'model_rate_limited',
        message: 'The model provider is rate-limiting requests (429). Try again in 3 seconds.',
      });
      expect(server.received).toHaveLength(1); // maxRetries: 0 was honoured
    } finally {
      await server.close();
    }
  });

  it('maps a refused connection to model_unreachable naming the host', async () => {
    const baseURL = await unusedLoopbackURL();
    const client = createModelClient({ ANTHROPIC_BASE_URL: baseURL, ANTHROPIC_API_KEY: 'k-test' }, { maxRetries: 0 });
    const err = await client.messages.create({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Anthropic.APIConnectionError);
    const d = describeModelError(err, { baseURL });
    expect(d.code).toBe('model_unreachable');
    expect(d.message).toContain(`Could not reach the model at ${new URL(baseURL).host}`);
  });
});
