import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';

import { demoClient, trackTimers, userSays } from '@/test/fixtures/demo-model-client';

import { describeModelError } from '../errors';

// Cancellation and the failure triggers, through the real SDK.

const model = 'demo';

describe('demo model through the SDK: failures and cancellation', () => {
  it('stream.abort() stops the answer and leaves no timer running', async () => {
    const timers = trackTimers();
    try {
      const stream = demoClient(5_000).messages.stream({
        model,
        max_tokens: 500,
        messages: userSays('one two three four five six seven eight'),
      });
      let texts = 0;
      let pendingWhilePaused = 0;
      stream.on('text', () => {
        texts++;
        // Abort while the demo is waiting out its 5 s pause before word two.
        if (texts === 1) {
          setTimeout(() => {
            pendingWhilePaused = timers.pending();
            stream.abort();
          }, 30);
        }
      });
      const started = Date.now();
      await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);

      expect(stream.aborted).toBe(true);
      expect(texts).toBe(1);
      expect(Date.now() - started).toBeLessThan(2_000); // did not wait out the 5 s pause
      expect(pendingWhilePaused).toBeGreaterThan(0); // the pause timer was running…
      expect(timers.pending()).toBe(0); // …and the abort cleared it
    } finally {
      timers.restore();
    }
  });

  it('an AbortController signal cancels the request and describeModelError calls it cancelled', async () => {
    const controller = new AbortController();
    const stream = demoClient(5_000).messages.stream(
      { model, max_tokens: 500, messages: userSays('a b c d e f') },
      { signal: controller.signal },
    );
    stream.on('text', () => controller.abort());
    const error = await stream.finalMessage().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(describeModelError(error).code).toBe('cancelled');
  });

  it('[demo:fail-midstream] streams some words, then the SDK throws', async () => {
    const stream = demoClient().messages.stream({
      model,
      max_tokens: 500,
      messages: userSays('break please [demo:fail-midstream]'),
    });
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    const error = await stream.finalMessage().then(
      () => null,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect(error).not.toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.length).toBeLessThan(10);
    expect(describeModelError(error)).toMatchObject({ code: 'model_stream_broken' });
    expect(describeModelError(error).message).toContain("The model's answer was cut off before it finished");
  });

  it('[demo:fail-midstream] also breaks a non-streaming answer', async () => {
    const error = await demoClient()
      .messages.create({ model, max_tokens: 500, messages: userSays('[demo:fail-midstream]') })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Error);
    expect(describeModelError(error).code).toBe('model_stream_broken');
  });

  it('[demo:overloaded] makes the SDK throw an APIError with status 529', async () => {
    const error = await demoClient()
      .messages.stream({ model, max_tokens: 500, messages: userSays('[demo:overloaded]') })
      .finalMessage()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
    expect(describeModelError(error)).toEqual({
      code: 'model_overloaded',
      message: 'The model is overloaded right now (529). Try again shortly.',
    });
  });
});
