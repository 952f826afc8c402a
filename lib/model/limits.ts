// How much a model can read (its context window) and write (its largest `max_tokens`), the
// figures every long-conversation and output decision rests on. Three sources, best first: what
// the models endpoint reports for the model (`max_input_tokens`, `max_tokens`), then the table of
// known models below (or an operator's own, `MODEL_LIMITS`), then a default that fits every
// current Claude model.

import { readConfig, type Env } from '@/lib/config';

import type { ThinkingKind } from './thinking-kind';

export interface ModelLimits {
  /** Input tokens the model accepts in one request (system, tools and messages). */
  contextWindow: number;
  /** The largest `max_tokens` the model accepts. */
  maxOutputTokens: number;
}

/** Used for a model nobody reported: every current Claude model reads at least 200k tokens. */
export const DEFAULT_MODEL_LIMITS: ModelLimits = { contextWindow: 200_000, maxOutputTokens: 8_192 };

/**
 * Known models by id prefix (a dated id such as `claude-sonnet-4-5-20250929` matches
 * `claude-sonnet-4-5`); the longest matching prefix wins. The offline demo model declares a window
 * like the real ones, so the same rules are exercised without a key.
 */
export const KNOWN_MODEL_LIMITS: Readonly<Record<string, ModelLimits>> = {
  demo: { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-1': { contextWindow: 200_000, maxOutputTokens: 32_000 },
  'claude-opus-4': { contextWindow: 200_000, maxOutputTokens: 32_000 },
  'claude-sonnet-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-3-7-sonnet': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-3-5-haiku': { contextWindow: 200_000, maxOutputTokens: 8_192 },
};

/** What the models endpoint said about one model; any of it may be missing (null). */
export interface ListedLimits {
  contextWindow?: number | null;
  maxOutputTokens?: number | null;
  /** How it thinks, from its capabilities (./thinking-kind.ts); null when the listing did not say. */
  thinking?: ThinkingKind | null;
}

/**
 * The limits to use for `model`: the listed figures where reported, else the operator's table
 * (`MODEL_LIMITS`), else the known table, else the default — each figure on its own.
 */
export function modelLimits(model: string, listed: ListedLimits | null = null, env?: Env): ModelLimits {
  const configured = longestPrefix(configuredLimits(env), model) ?? longestPrefix(KNOWN_MODEL_LIMITS, model) ?? DEFAULT_MODEL_LIMITS;
  return {
    contextWindow: positive(listed?.contextWindow) ?? configured.contextWindow,
    maxOutputTokens: positive(listed?.maxOutputTokens) ?? configured.maxOutputTokens,
  };
}

function longestPrefix(table: Readonly<Record<string, ModelLimits>>, model: string): ModelLimits | null {
  let best: string | null = null;
  for (const prefix of Object.keys(table)) {
    if ((model === prefix || model.startsWith(`${prefix}-`) || model.startsWith(`${prefix}@`)) && (!best || prefix.length > best.length))
      best = prefix;
  }
  return best ? table[best]! : null;
}

function positive(n: number | null | undefined): number | null {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * `MODEL_LIMITS`: a JSON object of model id (or prefix) → `{ "contextWindow": n, "maxOutputTokens": n }`,
 * for models the table above does not know (a gateway's own names, say). Refused by field when
 * malformed (lib/config).
 */
export function configuredLimits(env?: Env): Readonly<Record<string, ModelLimits>> {
  return readConfig(env).MODEL_LIMITS;
}
