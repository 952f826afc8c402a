import type Anthropic from '@anthropic-ai/sdk';

import type { StoredThinking } from '@/db/stored-json';
import type { ThinkingKind } from '@/lib/model/thinking-kind';

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

/** The thinking part of a request, in the SDK's own types: a budget, or adaptive with an effort. */
export interface ThinkingRequest {
  thinking?: Anthropic.ThinkingConfigEnabled | Anthropic.ThinkingConfigAdaptive;
  output_config?: Anthropic.OutputConfig;
  max_tokens: number;
}

/**
 * What a model request carries for the run's setting, for a model of that kind
 * (lib/model/thinking-kind.ts): a model that takes a budget gets `thinking: { type: 'enabled',
 * budget_tokens }`; one that thinks only adaptively gets `thinking: { type: 'adaptive' }` and the
 * conversation's `output_config.effort`, never a budget (it would refuse the request). Either way
 * thinking tokens count against `max_tokens`, so the budget is room on top of the answer's own.
 */
export function thinkingRequest(
  thinking: StoredThinking | null | undefined,
  answerTokens: number,
  kind: ThinkingKind = 'budget',
): ThinkingRequest {
  if (!thinking?.enabled) return { max_tokens: answerTokens };
  const max_tokens = thinking.budgetTokens + answerTokens;
  if (kind === 'adaptive') return { thinking: { type: 'adaptive' }, output_config: { effort: thinking.effort }, max_tokens };
  return { thinking: { type: 'enabled', budget_tokens: thinking.budgetTokens }, max_tokens };
}
