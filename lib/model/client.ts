import Anthropic from '@anthropic-ai/sdk';

import { CONFIG_DEFAULTS, readConfig, type Env } from '@/lib/config';

import { createDemoFetch } from './demo';

// Chooses between the real Anthropic API and the offline demo model, and
// builds an SDK client for either. Both are the same `Anthropic` class, so the
// rest of Switchboard never branches on which model it is talking to.
//
// Only the variables passed in are read (never process.env behind the
// caller's back): the SDK would otherwise fill in ANTHROPIC_BASE_URL or
// ANTHROPIC_API_KEY itself, and a test passing `{}` would leak into the real API.

export type { Env };

export type ModelConfig = {
  kind: 'anthropic' | 'demo';
  /** The model id sent in requests (`demo` for the demo model). */
  model: string;
  /** What the UI shows: the model id, or "Demo model (offline)". */
  label: string;
};

export const DEFAULT_MODEL = CONFIG_DEFAULTS.ANTHROPIC_MODEL;
export const DEMO_MODEL_LABEL = 'Demo model (offline)';
export const DEMO_BASE_URL = 'http://demo.model.invalid';

/** Sent when only a base URL is set (e.g. a local gateway): the SDK refuses to run with no credential. */
const PLACEHOLDER_API_KEY = 'switchboard-no-api-key';

export function getModelConfig(env?: Env): ModelConfig {
  const config = readConfig(env);
  if (config.ANTHROPIC_API_KEY || config.ANTHROPIC_BASE_URL) {
    return { kind: 'anthropic', model: config.ANTHROPIC_MODEL, label: config.ANTHROPIC_MODEL };
  }
  return { kind: 'demo', model: 'demo', label: DEMO_MODEL_LABEL };
}

/**
 * `maxRetries` defaults to 0: the SDK's own retries are silent, so the engine retries instead
 * (lib/agent/model-retry.ts), where the person is told and Stop ends the wait.
 */
export function createModelClient(env?: Env, opts: { maxRetries?: number } = {}): Anthropic {
  const config = readConfig(env);
  if (getModelConfig(env).kind === 'demo') {
    return new Anthropic({
      apiKey: 'demo',
      baseURL: DEMO_BASE_URL,
      fetch: createDemoFetch({ delayMs: config.DEMO_MODEL_DELAY_MS }),
      // The demo is deterministic: a retry would only repeat the same answer
      // (and would hide the failure triggers tests rely on).
      maxRetries: 0,
    });
  }

  return new Anthropic({
    apiKey: config.ANTHROPIC_API_KEY ?? PLACEHOLDER_API_KEY,
    // null (not undefined) keeps the SDK from reading ANTHROPIC_BASE_URL from
    // process.env when the caller's env has none; null means the default host.
    baseURL: config.ANTHROPIC_BASE_URL ?? null,
    maxRetries: opts.maxRetries ?? 0,
  });
}

/** DEMO_MODEL_DELAY_MS: pause between streamed words, a non-negative integer of ms. */
export function demoDelayMs(env?: Env): number {
  return readConfig(env).DEMO_MODEL_DELAY_MS;
}
