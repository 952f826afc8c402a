import type Anthropic from '@anthropic-ai/sdk';

import type { StoredThinking } from '@/db/stored-json';

/**
 * Extended thinking for a conversation (issue 11): the model thinks before it answers, within a
 * budget of tokens. The API wants at least 1,024 and fewer than `max_tokens`, so a turn with
 * thinking asks for room for the budget on top of the answer's own.
 */
export const THINKING_BUDGET = { min: 1024, max: 32_000, default: 8000 } as const;

export function thinkingBudgetProblem(budgetTokens: number): string | null {
  if (!Number.isInteger(budgetTokens) || budgetTokens < THINKING_BUDGET.min || budgetTokens > THINKING_BUDGET.max) {
    return `must be a whole number of tokens from ${THINKING_BUDGET.min} to ${THINKING_BUDGET.max} (got ${budgetTokens})`;
  }
  return null;
}

/** What a model request carries for the run's setting: the `thinking` parameter and a `max_tokens` with room for it. */
export function thinkingRequest(
  thinking: StoredThinking | null | undefined,
  answerTokens: number,
): { thinking?: Anthropic.ThinkingConfigEnabled; max_tokens: number } {
  if (!thinking?.enabled) return { max_tokens: answerTokens };
  return { thinking: { type: 'enabled', budget_tokens: thinking.budgetTokens }, max_tokens: thinking.budgetTokens + answerTokens };
}
