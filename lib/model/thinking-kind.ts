import type Anthropic from '@anthropic-ai/sdk';

/**
 * How a model thinks when asked to: `budget` — `thinking: { type: 'enabled', budget_tokens }`,
 * the caller sets how much; `adaptive` — `thinking: { type: 'adaptive' }` with
 * `output_config.effort`, the model decides how much. A model is `adaptive` when it accepts only
 * that: the newest models refuse a budget.
 */
export type ThinkingKind = 'budget' | 'adaptive';

/**
 * What the models listing says (`capabilities.thinking.types`, read key by key as the SDK says):
 * adaptive when the model accepts `adaptive` and not `enabled`; null when the listing says
 * nothing (no capabilities: an older endpoint or a gateway).
 */
export function listedThinkingKind(capabilities: Anthropic.ModelCapabilities | null | undefined): ThinkingKind | null {
  const types = capabilities?.thinking?.types;
  if (!types) return null;
  return types.adaptive?.supported && !types.enabled?.supported ? 'adaptive' : 'budget';
}

/**
 * Models known to accept only adaptive thinking, by id prefix (a dated or suffixed id matches),
 * for a listing without capabilities. What the listing says always wins over this table.
 */
export const KNOWN_ADAPTIVE_ONLY: readonly string[] = ['claude-opus-4-7', 'claude-mythos-preview'];

/** The model's kind: what the listing said, else the table of known ids, else `budget` (every older model). */
export function thinkingKind(model: string, listed: ThinkingKind | null | undefined): ThinkingKind {
  if (listed) return listed;
  const known = KNOWN_ADAPTIVE_ONLY.some((p) => model === p || model.startsWith(`${p}-`) || model.startsWith(`${p}@`));
  return known ? 'adaptive' : 'budget';
}
