import type { RunRow } from '@/db/queries/runs';
import type { StoredThinking } from '@/db/stored-json';
import { modelLimits } from '@/lib/model/limits';
import { thinkingKind } from '@/lib/model/thinking-kind';

import { DEFAULT_MAX_TOKENS, type EngineDeps } from './deps';
import { THINKING_BUDGET, thinkingRequest, type ThinkingRequest } from './thinking';

/**
 * The engine's deps as one run sees them: the model is the run's own (`runs.model`, the
 * conversation's choice when the turn started), and its listed limits are that model's, so every
 * step of the turn — resumed on any instance — asks the same model within its window.
 */
export function depsForRun(deps: EngineDeps, run: Pick<RunRow, 'model'>): EngineDeps {
  if (!run.model || (run.model === deps.model.model && deps.model.limits !== undefined)) return deps;
  return { ...deps, model: { ...deps.model, model: run.model, limits: deps.model.listedLimits?.(run.model) ?? null } };
}

/**
 * `max_tokens` (and thinking) for a request to `model.model`: the configured answer length, never
 * more than the model accepts. With thinking, the budget goes on top of the answer's length
 * (./thinking.ts), in the form the model takes — a budget, or adaptive with an effort, decided by
 * what the models listing said of it (`limits.thinking`, else the known ids:
 * lib/model/thinking-kind.ts). When both would pass the model's limit, the request asks for the
 * limit, and a budget is at most half of it, so the answer keeps room.
 */
export function outputRequest(model: EngineDeps['model'], thinking: StoredThinking | null | undefined): ThinkingRequest {
  const cap = modelLimits(model.model, model.limits ?? null).maxOutputTokens;
  const kind = thinkingKind(model.model, model.limits?.thinking);
  const asked = thinkingRequest(thinking, Math.min(model.maxTokens ?? DEFAULT_MAX_TOKENS, cap), kind);
  if (asked.max_tokens <= cap || !asked.thinking) return { ...asked, max_tokens: Math.min(asked.max_tokens, cap) };
  if (asked.thinking.type === 'adaptive') return { ...asked, max_tokens: cap };
  const budget = Math.max(THINKING_BUDGET.min, Math.min(asked.thinking.budget_tokens, Math.floor(cap / 2)));
  return { thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: cap };
}
