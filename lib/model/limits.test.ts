import { describe, expect, it } from 'vitest';

import { configuredLimits, DEFAULT_MODEL_LIMITS, KNOWN_MODEL_LIMITS, modelLimits } from './limits';

const NO_ENV = {};

describe('modelLimits', () => {
  it('takes what the models endpoint listed, each figure on its own', () => {
    expect(modelLimits('claude-sonnet-4-5', { contextWindow: 1_000_000, maxOutputTokens: 100_000 }, NO_ENV)).toEqual({
      contextWindow: 1_000_000,
      maxOutputTokens: 100_000,
    });
    // A missing or nonsensical figure falls back to the table for that figure only.
    expect(modelLimits('claude-3-5-haiku', { contextWindow: 150_000, maxOutputTokens: null }, NO_ENV)).toEqual({
      contextWindow: 150_000,
      maxOutputTokens: 8_192,
    });
    expect(modelLimits('claude-3-5-haiku', { contextWindow: 0, maxOutputTokens: 1.5 }, NO_ENV)).toEqual(
      KNOWN_MODEL_LIMITS['claude-3-5-haiku'],
    );
  });

  it('knows dated ids by their prefix, the longest prefix first', () => {
    expect(modelLimits('claude-opus-4-1-20250805', null, NO_ENV)).toEqual({ contextWindow: 200_000, maxOutputTokens: 32_000 });
    expect(modelLimits('claude-opus-4-5-20251101', null, NO_ENV)).toEqual({ contextWindow: 200_000, maxOutputTokens: 64_000 });
    expect(modelLimits('claude-opus-4-20250514', null, NO_ENV).maxOutputTokens).toBe(32_000);
    expect(modelLimits('claude-sonnet-4-5@20250929', null, NO_ENV).maxOutputTokens).toBe(64_000);
    // A prefix must end at a separator: `demo` does not make `demonstration` known.
    expect(modelLimits('demonstration', null, NO_ENV)).toEqual(DEFAULT_MODEL_LIMITS);
  });

  it('uses the operator table (MODEL_LIMITS) before the known one, and the default for anything else', () => {
    const env = {
      MODEL_LIMITS: JSON.stringify({
        'my-gateway': { contextWindow: 32_000, maxOutputTokens: 2_048 },
        'claude-opus-4': { contextWindow: 500_000, maxOutputTokens: 9_000 },
      }),
    };
    expect(modelLimits('my-gateway-large', null, env)).toEqual({ contextWindow: 32_000, maxOutputTokens: 2_048 });
    expect(modelLimits('claude-opus-4-1', null, env)).toEqual({ contextWindow: 500_000, maxOutputTokens: 9_000 });
    // Listed figures still win over the operator's.
    expect(modelLimits('my-gateway', { maxOutputTokens: 4_096 }, env)).toEqual({ contextWindow: 32_000, maxOutputTokens: 4_096 });
    expect(modelLimits('some-other-model', null, env)).toEqual(DEFAULT_MODEL_LIMITS);
    expect(modelLimits('demo', null, NO_ENV)).toEqual(KNOWN_MODEL_LIMITS.demo);
  });

  it('refuses a malformed MODEL_LIMITS naming what is wrong', () => {
    expect(configuredLimits({ MODEL_LIMITS: '  ' })).toEqual({});
    expect(() => configuredLimits({ MODEL_LIMITS: '{nope' })).toThrow(/MODEL_LIMITS is not valid JSON/);
    expect(() => configuredLimits({ MODEL_LIMITS: '[1]' })).toThrow(/must be a JSON object/);
    expect(() => configuredLimits({ MODEL_LIMITS: '{"m": {"contextWindow": 1000}}' })).toThrow(
      'MODEL_LIMITS["m"].maxOutputTokens must be a whole number of tokens of at least 1 (got undefined).',
    );
    expect(() => modelLimits('m', null, { MODEL_LIMITS: '{"m": {"contextWindow": -5, "maxOutputTokens": 10}}' })).toThrow(
      'MODEL_LIMITS["m"].contextWindow must be a whole number of tokens of at least 1 (got -5).',
    );
  });
});
